"""Story state (issue 19): variables, and the conditions and effects written with them."""
