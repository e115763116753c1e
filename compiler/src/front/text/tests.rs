//! Parser and printer unit tests.
