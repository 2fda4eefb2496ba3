/*
 * dwarfcheck.c - the layout table against the runtime's own DWARF (tests only).
 *
 * Where a Go executable has DWARF, the runtime's struct layouts in it are
 * the compiler's truth: this compares runtime.bucket, runtime.memRecord and
 * runtime.memRecordCycle with a row of src/rtlayout.c.  Only the tests use
 * it (tests/locate-dump, tests/test_locate): it is built into the test
 * archive, never into libgoheap, so the library does not depend on libdw.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "dwarfcheck.h"

/* The structures and fields compared with the layout table. */
typedef struct dw_struct {
	const char *name;
	int found;
	uint64_t size;
	/* member offsets, -1 when absent; names in dw_fields */
	int64_t off[4];
} dw_struct;

static const char *const dw_bucket_fields[4] = {
	"allnext", "typ", "size", "nstk"
};

static void dw_read_struct(Dwarf_Die *die, dw_struct *ds,
			   const char *const *fields, size_t nfields)
{
	Dwarf_Die child;
	Dwarf_Word sz;
	size_t i;

	ds->found = 1;
	if (dwarf_aggregate_size(die, &sz) == 0)
		ds->size = sz;
	for (i = 0; i < 4; i++)
		ds->off[i] = -1;
	if (fields == NULL || dwarf_child(die, &child) != 0)
		return;
	do {
		Dwarf_Attribute at;
		Dwarf_Word off;
		const char *n;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		n = dwarf_diename(&child);
		if (n == NULL ||
		    dwarf_attr(&child, DW_AT_data_member_location, &at) == NULL ||
		    dwarf_formudata(&at, &off) != 0)
			continue;
		for (i = 0; i < nfields; i++)
			if (strcmp(n, fields[i]) == 0)
				ds->off[i] = (int64_t)off;
	} while (dwarf_siblingof(&child, &child) == 0);
}

int gh_dwarf_check_layout(const char *path, const gh_rtlayout *lay,
			  unsigned ptr_size, char *report, size_t len,
			  gh_err *err)
{
	dw_struct ds[3] = {
		{ "runtime.bucket", 0, 0, { -1, -1, -1, -1 } },
		{ "runtime.memRecord", 0, 0, { -1, -1, -1, -1 } },
		{ "runtime.memRecordCycle", 0, 0, { -1, -1, -1, -1 } },
	};
	const unsigned want[4] = { lay->w_allnext, lay->w_typ, lay->w_size,
				   lay->w_nstk };
	gh_buf b = GH_BUF_INIT;
	Dwarf *dw = NULL;
	Dwarf_Off off = 0, next;
	size_t hsize, i, nfound = 0;
	int fd, rc = 0;

	if (report != NULL && len > 0)
		report[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gh_errf(err, GOHEAP_ENOEXE, "%s: cannot open", path);
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (dw == NULL) {
		if (report != NULL)
			snprintf(report, len, "no DWARF");
		goto out;
	}
	while (nfound < 3 &&
	       dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, die;

		if (dwarf_offdie(dw, off + hsize, &cu) != NULL &&
		    dwarf_child(&cu, &die) == 0) {
			do {
				const char *n;

				if (dwarf_tag(&die) != DW_TAG_structure_type)
					continue;
				n = dwarf_diename(&die);
				if (n == NULL)
					continue;
				for (i = 0; i < 3; i++) {
					if (ds[i].found ||
					    strcmp(n, ds[i].name) != 0)
						continue;
					dw_read_struct(&die, &ds[i], i == 0 ?
						       dw_bucket_fields : NULL,
						       4);
					nfound++;
				}
			} while (nfound < 3 && dwarf_siblingof(&die, &die) == 0);
		}
		off = next;
	}
	if (nfound == 0) {
		if (report != NULL)
			snprintf(report, len, "DWARF without runtime.bucket");
		goto out;
	}
	if (ds[0].found) {
		if (ds[0].size != (uint64_t)lay->bucket_words * ptr_size)
			gh_buf_printf(&b, "; runtime.bucket is %llu bytes, "
				      "the table says %u",
				      (unsigned long long)ds[0].size,
				      lay->bucket_words * ptr_size);
		for (i = 0; i < 4; i++)
			if (ds[0].off[i] != (int64_t)want[i] * ptr_size)
				gh_buf_printf(&b, "; bucket.%s at %lld, the "
					      "table says %u",
					      dw_bucket_fields[i],
					      (long long)ds[0].off[i],
					      want[i] * ptr_size);
	}
	if (ds[2].found &&
	    ds[2].size != (uint64_t)lay->cycle_words * ptr_size)
		gh_buf_printf(&b, "; runtime.memRecordCycle is %llu bytes, "
			      "the table says %u",
			      (unsigned long long)ds[2].size,
			      lay->cycle_words * ptr_size);
	if (ds[1].found &&
	    ds[1].size != 4ull * lay->cycle_words * ptr_size)
		gh_buf_printf(&b, "; runtime.memRecord is %llu bytes, the "
			      "table says %u", (unsigned long long)ds[1].size,
			      4 * lay->cycle_words * ptr_size);
	if (b.oom) {
		rc = gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	} else if (b.len > 0) {
		gh_buf_putc(&b, '\0');
		rc = gh_errf(err, GOHEAP_EVERSION, "unsupported runtime "
			     "layout: DWARF of %s disagrees with the built-in "
			     "table (%s)%s", path, lay->cite,
			     b.oom ? "" : (const char *)b.data);
	} else if (report != NULL) {
		snprintf(report, len, "DWARF layouts match (%zu of 3 types "
			 "found)", nfound);
	}
out:
	gh_buf_free(&b);
	if (dw != NULL)
		dwarf_end(dw);
	close(fd);
	return rc;
}
