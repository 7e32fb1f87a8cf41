//! Theory: Bouton's rule, single-heap nim-value sequences, periodicity and misère genus.
