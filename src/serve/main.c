/*
 * main.c - aflame-serve, the program behind `aflame-render serve`.
 *
 * The server is a program of its own so that the command, which draws a
 * graph in a fraction of a second, does not load the server's libraries at
 * each start: libmicrohttpd, SQLite, libpq and libcrypto bring 27 shared
 * objects, which took about half the start-up of the command.  The command
 * runs this program with argv[0] set to the command's own path (see
 * run_server in src/cli/main.c), and the server draws uploads with it.
 */
#include "serve.h"

int main(int argc, char **argv)
{
	return serve_main(argc, argv);
}
