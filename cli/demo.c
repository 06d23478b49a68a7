#include <stdio.h>
int spt_cli_demo(int argc, char **argv);
int spt_cli_demo(int argc, char **argv) { (void)argc; (void)argv; printf("demo\n"); return 0; }
