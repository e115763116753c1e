/* Values a C caller can pass that no enumerator names, and an empty cache folder: every call
 * answers TGSIC_STATUS_ARGUMENT (or, for the folder, uses the default one), none runs with a
 * value Rust never made. Run by capi/tests/c_example.rs in an empty working directory; exits
 * 0 when every check held, else prints the failed check and exits 1. */
#include <stdio.h>
#include <string.h>
#include "tgsic.h"

static int failed = 0;

#define CHECK(cond, what)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "failed: %s (%s)\n", what, tgsic_last_error());                \
            failed = 1;                                                                    \
        }                                                                                  \
    } while (0)

int main(void) {
    static const char src[] = "FRAG\nDCL IN[0], GENERIC[0], LINEAR\nDCL OUT[0], COLOR\n"
                              "ADD OUT[0], IN[0], IN[0]\nEND\n";
    struct tgsic_runtime *rt = NULL;
    /* "" is no setting: the default folder (TGSIC_CACHE_DIR), never the working directory. */
    CHECK(tgsic_runtime_new_with_cache(1, 0, "", &rt) == TGSIC_STATUS_OK, "runtime");
    if (!rt) return 1;
    struct tgsic_module *m = NULL;
    CHECK(tgsic_module_load(rt, (const uint8_t *)src, strlen(src), &m) == TGSIC_STATUS_OK,
          "load");
    if (!m) return 1;

    struct tgsic_shader *s = NULL;
    CHECK(tgsic_shader_compile(rt, m, (enum tgsic_engine)99, &s) == TGSIC_STATUS_ARGUMENT,
          "engine 99");
    CHECK(s == NULL, "no shader for engine 99");
    CHECK(strstr(tgsic_last_error(), "99") != NULL, "the message names the value");
    CHECK(tgsic_shader_compile(rt, m, (enum tgsic_engine)-1, &s) == TGSIC_STATUS_ARGUMENT,
          "engine -1");
    CHECK(tgsic_shader_compile_with_math(rt, m, TGSIC_ENGINE_CRANELIFT, (enum tgsic_math)77,
                                         &s) == TGSIC_STATUS_ARGUMENT,
          "math 77");
    CHECK(s == NULL, "no shader for math 77");

    /* Every engine the enumeration names compiles (LLVM only in builds with it). */
    CHECK(tgsic_shader_compile(rt, m, TGSIC_ENGINE_INTERPRETER, &s) == TGSIC_STATUS_OK,
          "interpreter");
    tgsic_shader_free(s);
    s = NULL;
    CHECK(tgsic_shader_compile_with_math(rt, m, TGSIC_ENGINE_AUTO, TGSIC_MATH_EXACT, &s) ==
              TGSIC_STATUS_OK,
          "auto, exact");
    if (!s) return 1;

    uint32_t inputs[16], outputs[16];
    for (int k = 0; k < 16; k++) {
        float x = 0.25f * (float)k;
        memcpy(&inputs[k], &x, 4);
    }
    CHECK(tgsic_shader_run_fragments(rt, s, NULL, 4, (enum tgsic_layout)7, inputs, 16,
                                     outputs, 16, NULL) == TGSIC_STATUS_ARGUMENT,
          "layout 7");
    CHECK(tgsic_shader_run_fragments(rt, s, NULL, 4, TGSIC_LAYOUT_AOS, inputs, 16, outputs,
                                     16, NULL) == TGSIC_STATUS_OK,
          "layout AOS");
    float y;
    memcpy(&y, &outputs[5], 4);
    CHECK(y == 2.5f, "IN + IN");
    CHECK(tgsic_shader_run_vertices(rt, s, NULL, 4, (enum tgsic_layout)2, inputs, 16, outputs,
                                    16) == TGSIC_STATUS_ARGUMENT,
          "vertices, layout 2");

    tgsic_shader_free(s);
    tgsic_module_free(m);
    tgsic_runtime_free(rt);
    return failed;
}
