/*
 * locate-dump.c - print what go-heap's locator finds in an executable, for
 * tests/run-stripped.sh (linked with the internal library; not installed).
 *
 *   locate-dump [--bias HEX] [--symtab] [--infer] [--dwarf] EXE
 *   locate-dump --refs FUNC EXE      every data reference decoded in FUNC
 *
 * Default output (addresses are link-time + bias):
 *
 *   version go1.24.4            (from .go.buildinfo, else inferred)
 *   mbuckets 0x5ef678
 *   bbuckets 0x5ef680           (0x0 when not confirmed)
 *   xbuckets 0x5ef688
 *   mProfCycle 0x60f858
 *   MemProfileRate 0x5e4370
 *   allgs 0x5ef2a0              (0x0 when not confirmed)
 *   tracebacklabels 0x61d5a8    (runtime.debug.tracebacklabels, 1.26+;
 *                               0x0 before, or when not confirmed)
 *   mheap_ 0x5e1400             (-p types; 0x0 without a heap row, or
 *                               when not confirmed)
 *   memstats 0x5d7080           (-p memstats: runtime.memstats,
 *   gcController 0x5d6080       gcController and allp; 0x0 without a
 *   allp 0x5b49a0               MemStats row, or when not confirmed)
 *   sched 0x5b8420              (go_goroutines, go_threads: runtime.sched
 *   allm 0x5b7080               and allm; 0x0 when not confirmed)
 *   how mbuckets via ...
 *
 * --symtab prints the same eleven names from .symtab instead (the truth for
 * an unstripped twin); --infer ignores .go.buildinfo; --dwarf adds a line
 * "dwarf ..." from the DWARF layout check.  Exit 0, or 1 with the
 * library's message on stderr.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exe.h"
#include "locate.h"
#include "dwarfcheck.h"
#include "rtlayout.h"
#include "sym.h"

static void usage(void)
{
	fprintf(stderr, "usage: locate-dump [--bias HEX] [--symtab] "
		"[--infer] [--dwarf] [--refs FUNC] EXE\n");
	exit(2);
}

static int dump_refs(const gh_exe *exe, const gh_sym *sym, uint64_t bias,
		     const char *fn, gh_err *err)
{
	gh_refvec rv = { NULL, 0, 0 };
	uint64_t lo, hi;
	const unsigned char *code;
	size_t i;
	int rc;

	if (gh_sym_func_entry(sym, fn, &lo, &hi) != 0 || hi <= lo)
		return gh_errf(err, GOHEAP_ENOSYM, "%s: not in the pclntab",
			       fn);
	code = gh_exe_ptr(exe, lo - bias, (size_t)(hi - lo));
	if (code == NULL)
		return gh_errf(err, GOHEAP_ECORRUPT, "%s: no code", fn);
	rc = gh_decode_refs(gh_exe_machine(exe), code, (size_t)(hi - lo),
			    lo - bias, &rv, err);
	for (i = 0; rc == 0 && i < rv.n; i++) {
		const gh_section *s = gh_exe_section_at(exe, rv.v[i].target);

		printf("+0x%llx %s%s%s size %u -> 0x%llx %s\n",
		       (unsigned long long)(rv.v[i].pc - (lo - bias)),
		       rv.v[i].kind & GH_REF_ADDR ? "addr" : "",
		       rv.v[i].kind & GH_REF_LOAD ? "load" : "",
		       rv.v[i].kind & GH_REF_STORE ? "store" : "",
		       rv.v[i].size, (unsigned long long)rv.v[i].target,
		       s != NULL && s->name != NULL ? s->name : "-");
	}
	gh_refvec_free(&rv);
	return rc;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"mbuckets", "bbuckets", "xbuckets", "mProfCycle",
		"MemProfileRate", "allgs", "tracebacklabels", "mheap_",
		"memstats", "gcController", "allp", "sched", "allm"
	};
	gh_err err;
	gh_exe *exe = NULL;
	gh_sym *sym = NULL;
	gh_gover ver = { 0, 0, 0 };
	gh_rtaddrs a;
	uint64_t bias = 0, v[13];
	char verstr[160], how[768], rep[256];
	const char *path = NULL, *refs = NULL;
	int symtab = 0, infer = 0, dwarf = 0, rc, i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--bias") == 0 && i + 1 < argc)
			bias = strtoull(argv[++i], NULL, 16);
		else if (strcmp(argv[i], "--symtab") == 0)
			symtab = 1;
		else if (strcmp(argv[i], "--infer") == 0)
			infer = 1;
		else if (strcmp(argv[i], "--dwarf") == 0)
			dwarf = 1;
		else if (strcmp(argv[i], "--refs") == 0 && i + 1 < argc)
			refs = argv[++i];
		else if (argv[i][0] == '-' || path != NULL)
			usage();
		else
			path = argv[i];
	}
	if (path == NULL)
		usage();
	memset(&err, 0, sizeof(err));
	rc = gh_exe_open(&exe, path, &err);
	if (rc != 0)
		goto out;
	rc = gh_sym_open(&sym, exe, bias, ver, &err);
	if (rc != 0)
		goto out;
	if (refs != NULL) {
		rc = dump_refs(exe, sym, bias, refs, &err);
		goto out;
	}
	snprintf(verstr, sizeof(verstr), "%s", gh_exe_go_version(exe));
	if (infer || verstr[0] == '\0' || gh_gover_parse(&ver, verstr) != 0) {
		rc = gh_infer_go_version(exe, sym, bias, &ver, verstr,
					 sizeof(verstr), &err);
		if (rc != 0)
			goto out;
	}
	printf("version %s\n", verstr);
	if (symtab) {
		static const char *const syms[] = {
			"runtime.mbuckets", "runtime.bbuckets",
			"runtime.xbuckets", "runtime.mProfCycle",
			"runtime.MemProfileRate", "runtime.allgs"
		};

		const gh_rtlayout *lay = gh_rtlayout_for(ver);

		for (i = 0; i < 6; i++) {
			v[i] = 0;
			if (gh_exe_symbol(exe, syms[i], &v[i], NULL) == 0)
				v[i] += bias;
		}
		/* runtime.debug's field, where the release has it */
		v[6] = 0;
		if (lay != NULL && lay->tb_labels != 0 &&
		    gh_exe_symbol(exe, "runtime.debug", &v[6], NULL) == 0)
			v[6] += bias + lay->debug_tracebacklabels;
		/* runtime.mheap_ (-p types), where the release has a heap row */
		v[7] = 0;
		if (lay != NULL && lay->heap_verified &&
		    gh_exe_symbol(exe, "runtime.mheap_", &v[7], NULL) == 0)
			v[7] += bias;
		/* -p memstats' globals, where the release has a row */
		v[8] = v[9] = v[10] = 0;
		if (lay != NULL && lay->mstats_verified &&
		    (gh_exe_symbol(exe, "runtime.memstats", &v[8], NULL) != 0 ||
		     gh_exe_symbol(exe, "runtime.gcController", &v[9],
				   NULL) != 0 ||
		     gh_exe_symbol(exe, "runtime.allp", &v[10], NULL) != 0))
			v[8] = v[9] = v[10] = 0;
		else if (lay != NULL && lay->mstats_verified) {
			v[8] += bias;
			v[9] += bias;
			v[10] += bias;
		}
		/* go_goroutines/go_threads' globals, where the row has them */
		v[11] = v[12] = 0;
		if (lay != NULL && lay->sched_ngsys != 0 &&
		    (gh_exe_symbol(exe, "runtime.sched", &v[11], NULL) != 0 ||
		     gh_exe_symbol(exe, "runtime.allm", &v[12], NULL) != 0))
			v[11] = v[12] = 0;
		else if (lay != NULL && lay->sched_ngsys != 0) {
			v[11] += bias;
			v[12] += bias;
		}
		how[0] = '\0';
	} else {
		rc = gh_locate_globals(exe, sym, ver, bias, &a, how,
				       sizeof(how), &err);
		if (rc != 0)
			goto out;
		v[0] = a.mbuckets;
		v[1] = a.bbuckets;
		v[2] = a.xbuckets;
		v[3] = a.mprofcycle;
		v[4] = a.memprofilerate;
		v[5] = a.allgs;
		v[6] = a.tblabels;
		v[7] = a.mheap;
		v[8] = a.memstats;
		v[9] = a.gccontroller;
		v[10] = a.allp;
		v[11] = a.sched;
		v[12] = a.allm;
	}
	for (i = 0; i < 13; i++)
		printf("%s 0x%llx\n", names[i], (unsigned long long)v[i]);
	if (how[0] != '\0')
		printf("how %s\n", how);
	if (dwarf) {
		const gh_rtlayout *lay = gh_rtlayout_for(ver);

		if (lay == NULL) {
			rc = gh_errf(&err, GOHEAP_EVERSION, "no layout for "
				     "go1.%d", ver.minor);
			goto out;
		}
		rc = gh_dwarf_check_layout(path, lay, gh_exe_ptr_size(exe),
					   rep, sizeof(rep), &err);
		if (rc != 0)
			goto out;
		printf("dwarf %s\n", rep);
	}
out:
	if (rc != 0)
		fprintf(stderr, "locate-dump: %s\n", err.msg);
	gh_sym_close(sym);
	gh_exe_close(exe);
	return rc != 0 ? 1 : 0;
}
