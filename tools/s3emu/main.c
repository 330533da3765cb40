#include <stdio.h>
int main(void) { fprintf(stderr, "s3emu: not yet\n"); return 1; }
