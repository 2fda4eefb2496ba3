/*
 * watch_outdir.h - go-heap watch's --output-dir: each collection's delta
 * profile as PID-COMM-STAMP.pb.gz, written under a temporary name and
 * renamed; the oldest removed beyond --output-max-bytes; a killed run's
 * temporaries removed at start.  Only the files of that name pattern are
 * ever touched (a directory others write to keeps theirs).
 */
#ifndef GH_WATCH_OUTDIR_H
#define GH_WATCH_OUTDIR_H

#include <stddef.h>
#include <time.h>

#define WOD_REFUSED (-1)   /* the .tmp name exists (planted or taken) */
#define WOD_FAILED  (-2)   /* written partly or not renamed: removed */

/* The parts of an output file's name: comm_in reduced to [A-Za-z0-9_.]
 * ("go" when NULL or empty) and now as YYYYMMDDTHHMMSSZ (UTC). */
void wod_name_parts(const char *comm_in, time_t now, char *comm,
		    size_t ncomm, char *stamp, size_t nstamp);

/* buf as DIR/PID-COMM-STAMP.pb.gz (COMM reduced to [A-Za-z0-9_.], "go"
 * when empty): 0, WOD_REFUSED or WOD_FAILED; -v (verbose) says why a
 * name was refused. */
int wod_write(const char *dir, int pid, const char *comm,
	      const unsigned char *buf, size_t len, int verbose);

/* At start: our *.tmp files a killed watch left; how many removed. */
unsigned wod_sweep_tmp(const char *dir, int verbose);

/* Our oldest files removed until the directory holds at most max bytes
 * of them; how many removed. */
unsigned wod_rotate(const char *dir, unsigned long long max);

#endif
