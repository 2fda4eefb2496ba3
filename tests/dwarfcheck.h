/* dwarfcheck.h - the layout table against the runtime's DWARF (tests only). */
#ifndef GH_DWARFCHECK_H
#define GH_DWARFCHECK_H

#include "locate.h"
#include "rtlayout.h"

/*
 * Where the executable at `path` has DWARF, compare the layouts of
 * runtime.bucket, runtime.memRecord and runtime.memRecordCycle in it with
 * `lay` (pointer size `ptr_size`), and for 64-bit targets of rows with
 * verified goroutine offsets every goroutine offset of the row (runtime.g,
 * stack, gobuf, m, the synctest bubble, debug.tracebacklabels; fields the
 * row says the release lacks must be absent); with a .symtab, the row's
 * gStatusStrings, waitReasonStrings and isIdleInSynctest against the
 * runtime's data in the file.  0 when they match or when there is no
 * DWARF (`report`, may be NULL, says which: "DWARF layouts match (N of 3
 * types found); goroutine offsets match (...); the runtime's ... == the
 * table"); GOHEAP_EVERSION with every mismatch in the message otherwise.
 */
int gh_dwarf_check_layout(const char *path, const gh_rtlayout *lay,
			  unsigned ptr_size, char *report, size_t len,
			  gh_err *err);

#endif
