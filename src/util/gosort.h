/*
 * gosort.h - Go's unstable sorts, ported so that ties come out as in Go.
 *
 * runtime/pprof sorts its records with sort.Slice (Go <= 1.22) or
 * slices.SortFunc (1.23+) before printing them.  Both are pattern-defeating
 * quicksorts whose output order for equal keys depends on every detail of
 * the algorithm, so reproducing pprof's text byte for byte needs the exact
 * algorithm, fed the records in the same (bucket-list) order.
 */
#ifndef GH_GOSORT_H
#define GH_GOSORT_H

#include <stddef.h>

/*
 * The "less" of sort.Slice: nonzero when element a must sort before b.
 * Called with pointers into the array being sorted.
 */
typedef int (*gh_less_fn)(const void *a, const void *b, void *payload);

/*
 * The "cmp" of slices.SortFunc: <0, 0 or >0 like cmp.Compare(a, b).
 */
typedef int (*gh_cmp_fn)(const void *a, const void *b, void *payload);

/*
 * sort.Slice(x, less) (sort/slice.go, pdqsort_func in sort/zsortfunc.go):
 * sorts n elements of `size` bytes at `base` in place.  size must be at
 * most 64 bytes; sort pointers or indices for anything bigger.
 */
void gh_sort_slice(void *base, size_t n, size_t size, gh_less_fn less,
		   void *payload);

/*
 * slices.SortFunc(x, cmp) (slices/sort.go, pdqsortCmpFunc in
 * slices/zsortanyfunc.go).  Same contract as gh_sort_slice.
 */
void gh_slices_sort_func(void *base, size_t n, size_t size, gh_cmp_fn cmp,
			 void *payload);

#endif
