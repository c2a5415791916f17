option(A "x" ON
option(B "unterminated