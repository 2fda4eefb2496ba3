/*
 * watch.h - `go-heap watch`: the node-level exporter (src/watch*.c,
 * doc/watch.md).
 */
#ifndef GH_WATCH_H
#define GH_WATCH_H

/*
 * Run `go-heap watch ARGS...` until SIGINT or SIGTERM.  argv[0] is "watch".
 * Returns the CLI's exit status: 0 after a signal, 1 on a runtime error
 * (cannot listen, ...), 2 on a usage error.  Prints its own messages.
 */
int gh_watch_main(int argc, char **argv);

#endif
