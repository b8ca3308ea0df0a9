"""Story state: variables, and the conditions and effects written with them."""
