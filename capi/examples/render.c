/* Renders a fragment shader to a PPM image through tgsic's C API (tgsic.h).
 *
 * Against the installed library (`cargo cinstall --release -p tgsic-c --prefix ~/.local`):
 *   cc render.c $(pkg-config --cflags --libs tgsic) -o render
 * or against a build in the repository (`cargo build -p tgsic-c`):
 *   cc render.c -I capi/include -L target/debug -ltgsic_c -o render
 *   LD_LIBRARY_PATH=target/debug ./render examples/shaders/checker.tgsi checker.ppm 64 64
 *
 * The host computes each fragment's inputs as `tgsic run` does (GENERIC and other inputs:
 * ((i + 0.5)/W, (j + 0.5)/H, 0, 1); POSITION: (i + 0.5, H - (j + 0.5), 0.5, 1)), in 2x2
 * quads, and writes COLOR[0]. Exit status 0, or 1 with the library's message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tgsic.h"

static int fail(const char *what) {
    fprintf(stderr, "render: %s: %s\n", what, tgsic_last_error());
    return 1;
}

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: render SHADER OUT.ppm [WIDTH HEIGHT]\n");
        return 2;
    }
    int w = argc > 4 ? atoi(argv[3]) : 64, h = argc > 4 ? atoi(argv[4]) : 64;
    if (w <= 0 || h <= 0 || w % 2 || h % 2) {
        fprintf(stderr, "render: the size must be even and positive\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "render: cannot open %s\n", argv[1]);
        return 1;
    }
    static uint8_t src[1 << 20];
    size_t len = fread(src, 1, sizeof src, f);
    fclose(f);

    tgsic_runtime *rt = NULL;
    tgsic_module *module = NULL;
    tgsic_shader *shader = NULL;
    if (tgsic_runtime_new(0, 0, &rt) != TGSIC_STATUS_OK) return fail("runtime");
    if (tgsic_module_load(rt, src, len, &module) != TGSIC_STATUS_OK) return fail(argv[1]);
    if (tgsic_shader_compile(rt, module, TGSIC_ENGINE_CRANELIFT, &shader) != TGSIC_STATUS_OK)
        return fail("compile");

    size_t in_regs = tgsic_module_input_registers(module);
    size_t out_regs = tgsic_module_output_registers(module);
    int position = tgsic_module_input_register(module, "POSITION", 0);
    int color = tgsic_module_output_register(module, "COLOR", 0);
    if (color < 0) {
        fprintf(stderr, "render: the shader writes no COLOR[0]\n");
        return 1;
    }
    size_t n = (size_t)w * h;
    uint32_t *in = calloc(n * in_regs * 4 + 1, sizeof *in);
    uint32_t *out = calloc(n * out_regs * 4 + 1, sizeof *out);
    int *px = calloc(n, sizeof *px), *py = calloc(n, sizeof *py);
    /* Quads: upper left, upper right, lower left, lower right (j = 0 is the bottom row). */
    static const int dx[4] = {0, 1, 0, 1}, dy[4] = {1, 1, 0, 0};
    size_t k = 0;
    for (int qy = 0; qy < h / 2; qy++)
        for (int qx = 0; qx < w / 2; qx++)
            for (int c = 0; c < 4; c++, k++) {
                int i = 2 * qx + dx[c], j = 2 * qy + dy[c];
                px[k] = i;
                py[k] = j;
                for (size_t r = 0; r < in_regs; r++) {
                    float v[4] = {(i + 0.5f) / w, (j + 0.5f) / h, 0.0f, 1.0f};
                    if ((int)r == position) {
                        v[0] = i + 0.5f;
                        v[1] = h - (j + 0.5f);
                        v[2] = 0.5f;
                    }
                    for (int ch = 0; ch < 4; ch++) in[(k * in_regs + r) * 4 + ch] = bits(v[ch]);
                }
            }
    if (tgsic_shader_run_fragments(rt, shader, NULL, n, TGSIC_LAYOUT_AOS, in, n * in_regs * 4,
                                   out, n * out_regs * 4, NULL) != TGSIC_STATUS_OK)
        return fail("run");

    /* PPM, top row first; each component clamped to [0, 1], times 255, rounded. */
    unsigned char *rgb = calloc(n * 3, 1);
    for (k = 0; k < n; k++)
        for (int ch = 0; ch < 3; ch++) {
            float v;
            uint32_t u = out[(k * out_regs + color) * 4 + ch];
            memcpy(&v, &u, sizeof v);
            v = v != v ? 0.0f : v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
            rgb[((size_t)(h - 1 - py[k]) * w + px[k]) * 3 + ch] = (unsigned char)(v * 255.0f + 0.5f);
        }
    FILE *o = fopen(argv[2], "wb");
    if (!o) {
        fprintf(stderr, "render: cannot write %s\n", argv[2]);
        return 1;
    }
    fprintf(o, "P6\n%d %d\n255\n", w, h);
    fwrite(rgb, 1, n * 3, o);
    fclose(o);
    printf("%s: %dx%d, %zu input and %zu output registers\n", argv[1], w, h, in_regs, out_regs);

    free(rgb);
    free(in);
    free(out);
    free(px);
    free(py);
    tgsic_shader_free(shader);
    tgsic_module_free(module);
    tgsic_runtime_free(rt);
    return 0;
}
