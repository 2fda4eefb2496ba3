/*
 * goversion.c - the Go version of a binary without .go.buildinfo: the
 * version string runtime.schedinit materialises, checked against what the
 * file's sections and pclntab magic allow (locate.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locate_int.h"

#include <elf.h>


/*
 * A release string as runtime.buildVersion holds it: "go1.N", "go1.N.P",
 * "go1.NrcK", "go1.N.P X:exp", "devel go1.N-hash ...": printable, short.
 */
static int version_string_ok(const unsigned char *p, size_t n)
{
	size_t i, off = 0;

	if (n < 5 || n > 128)
		return 0;
	for (i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return 0;
	if (n > 6 && memcmp(p, "devel ", 6) == 0)
		off = 6;
	return n - off >= 5 && memcmp(p + off, "go1.", 4) == 0 &&
	       isdigit(p[off + 4]);
}

/*
 * runtime.schedinit reads runtime.buildVersion ("if buildVersion == ""
 * {buildVersion = "unknown"}", Go 1.19-1.24 src/runtime/proc.go), a Go
 * string header {ptr, len} in .data; the pointer is relocated in a PIE,
 * hence gh_exe_read_word.  The reference may be to the len word.
 */
static int version_from_schedinit(const gh_exe *exe, const gh_sym *sym,
				  uint64_t bias, char *buf, size_t len,
				  gh_err *err)
{
	gh_refvec rv = { NULL, 0, 0 };
	unsigned ps = gh_exe_ptr_size(exe);
	loc L;
	gh_decoder dec = GH_DECODER_INIT;
	uint64_t entry;
	size_t i;
	int rc, k, found = 0;

	L.exe = exe;
	L.sym = sym;
	L.bias = bias;
	L.ps = ps;
	L.err = err;
	L.dec = &dec;
	rc = gh_loc_func_refs(&L, "runtime.schedinit", &rv, &entry);
	gh_decoder_close(&dec);
	if (rc != 0)
		goto out;
	for (i = 0; i < rv.n && !found; i++) {
		for (k = 0; k < 2 && !found; k++) {
			uint64_t hdr = rv.v[i].target - (uint64_t)k * ps;
			uint64_t sp, sl;
			const unsigned char *p;
			int sec = gh_loc_sec_class(exe, hdr, 2 * ps);

			if (sec != SEC_DATA && sec != SEC_NOPTRDATA)
				continue;
			if (gh_exe_read_word(exe, hdr, &sp) != 0 ||
			    gh_exe_read_word(exe, hdr + ps, &sl) != 0 ||
			    sl >= len)
				continue;
			p = gh_exe_ptr(exe, sp, (size_t)sl);
			if (p == NULL || !version_string_ok(p, (size_t)sl))
				continue;
			memcpy(buf, p, (size_t)sl);
			buf[sl] = '\0';
			found = 1;
		}
	}
	rc = found ? 0 : 1;
out:
	gh_refvec_free(&rv);
	return rc;
}

int gh_scan_go_version(const unsigned char *buf, size_t n, gh_gover *out,
		       char *verstr, size_t len)
{
	char full[32] = "", shrt[32] = "";
	int full_bad = 0, shrt_bad = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; n >= 5 && i <= n - 5; i++) {
		char cand[32];
		size_t j = i + 4, d, c;
		int patch = 0;

		if (memcmp(buf + i, "go1.", 4) != 0 || !isdigit(buf[j]))
			continue;
		for (d = 0; j < n && isdigit(buf[j]) && d < 4; d++)
			j++;
		if (d > 3 || buf[i + 4] == '0')
			continue;
		if (j + 1 < n && buf[j] == '.' && isdigit(buf[j + 1])) {
			j++;
			for (d = 0; j < n && isdigit(buf[j]) && d < 4; d++)
				j++;
			if (d > 3)
				continue;
			patch = 1;
		} else if (j + 2 < n && (memcmp(buf + j, "rc", 2) == 0) &&
			   isdigit(buf[j + 2])) {
			j += 3;
			patch = 1;
		}
		c = j - i;
		memcpy(cand, buf + i, c);
		cand[c] = '\0';
		if (patch) {
			if (full[0] == '\0')
				snprintf(full, sizeof(full), "%s", cand);
			else if (strcmp(full, cand) != 0)
				full_bad = 1;
		} else {
			if (shrt[0] == '\0')
				snprintf(shrt, sizeof(shrt), "%s", cand);
			else if (strcmp(shrt, cand) != 0)
				shrt_bad = 1;
		}
		i = j - 1;
	}
	if (full[0] != '\0' && !full_bad) {
		snprintf(verstr, len, "%s", full);
		return gh_gover_parse(out, full) == 0 ? 0 : GOHEAP_EVERSION;
	}
	if (full[0] == '\0' && shrt[0] != '\0' && !shrt_bad) {
		snprintf(verstr, len, "%s", shrt);
		return gh_gover_parse(out, shrt) == 0 ? 0 : GOHEAP_EVERSION;
	}
	return GOHEAP_EVERSION;
}

/*
 * What the file itself says about its release: the pclntab magic and the
 * sections the linker added over time, as the release table has them
 * (gh_rt_filemarks, rtlayout.c).  Fills [*lo, *hi] (minor versions; hi 0
 * = no upper bound) and why (what was seen, for the message).
 */
static void version_bounds(const gh_exe *exe, const gh_sym *sym, int *lo,
			   int *hi, char *why, size_t len)
{
	uint32_t magic = gh_sym_magic(sym);
	/* Absent sections bound from above only when section headers exist
	 * at all (the pclntab has its own). */
	int headers = gh_exe_section(exe, ".gopclntab") != NULL ||
		      gh_exe_section(exe, ".data.rel.ro.gopclntab") != NULL;
	size_t i, k, off = 0;

	*lo = 0;
	*hi = 0;
	snprintf(why, len, "pclntab magic 0x%x", magic);
	for (i = 0; i < gh_rt_nfilemarks; i++) {
		const gh_rt_filemark *m = &gh_rt_filemarks[i];
		int present = 0;

		if (m->pcln_magic != 0)
			present = magic == m->pcln_magic;
		for (k = 0; k < 4 && m->sections[k] != NULL; k++)
			present |= gh_exe_section(exe, m->sections[k]) != NULL;
		if (present) {
			if (*lo < m->from)
				*lo = m->from;
			if (m->to != 0 && (*hi == 0 || *hi > m->to))
				*hi = m->to;
		} else if (m->pcln_magic == 0 && m->always && headers &&
			   (*hi == 0 || *hi > m->from - 1)) {
			*hi = m->from - 1;
		}
		if (m->pcln_magic == 0 && (present || m->always)) {
			off = strlen(why);
			if (off < len)
				snprintf(why + off, len - off, ", %s%s",
					 present ? "" : "no ", m->what);
		}
	}
}

int gh_infer_go_version(const gh_exe *exe, const gh_sym *sym, uint64_t bias,
			gh_gover *out, char *verstr, size_t len, gh_err *err)
{
	char vs[160], why[160];
	const char *how = "runtime.buildVersion via runtime.schedinit";
	const gh_section *ro;
	gh_gover v;
	int rc, lo, hi;

	memset(out, 0, sizeof(*out));
	if (len > 0)
		verstr[0] = '\0';
	rc = version_from_schedinit(exe, sym, bias, vs, sizeof(vs), err);
	if (rc == GOHEAP_ENOMEM)
		return rc;
	if (rc != 0 || gh_gover_parse(&v, vs) != 0) {
		how = "a scan of .rodata";
		ro = gh_exe_section(exe, ".rodata");
		if (ro == NULL || ro->data == NULL ||
		    gh_scan_go_version(ro->data, (size_t)ro->size, &v, vs,
				       sizeof(vs)) != 0)
			return gh_errf(err, GOHEAP_EVERSION,
				       "%s: Go version unknown: no "
				       ".go.buildinfo, runtime.buildVersion "
				       "not found through runtime.schedinit, "
				       "and no unambiguous \"go1.N.P\" in "
				       ".rodata", gh_exe_path(exe));
	}
	version_bounds(exe, sym, &lo, &hi, why, sizeof(why));
	if (v.major != 1 || v.minor < lo || (hi != 0 && v.minor > hi)) {
		char upper[16] = "later";

		if (hi != 0)
			snprintf(upper, sizeof(upper), "go1.%d", hi);
		return gh_errf(err, GOHEAP_EVERSION,
			       "%s: version string \"%s\" (from %s) "
			       "contradicts the file (%s: go1.%d to %s)",
			       gh_exe_path(exe), vs, how, why, lo, upper);
	}
	*out = v;
	snprintf(verstr, len, "%s (inferred)", vs);
	return 0;
}

