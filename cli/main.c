/* main.c -- the spt command (for now: the walkthrough). */
#include <stdio.h>
#include <string.h>

#include "spt.h"

int spt_cli_demo(int argc, char **argv);

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "demo")) return spt_cli_demo(argc - 1, argv + 1);
    fprintf(stderr, "usage: spt demo [DATA_DIR]\n");
    return 2;
}
