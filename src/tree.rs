//! Complete game trees with minimax and alpha-beta values.
