/*
 * gosort.c - line-by-line port of Go's pdqsort (sort.Slice, slices.SortFunc).
 *
 * runtime/pprof's debug=1 writers sort records with an unstable sort and
 * print them in that order, so records with equal keys (very common: many
 * buckets have zero bytes in use) come out in an order that only Go's exact
 * algorithm reproduces.  qsort(3) or a stable merge sort would give valid
 * but different text, which breaks byte-for-byte comparison with the
 * target's own output.
 *
 * Go generates two copies of the algorithm from one template
 * (sort/gen_sort_variants.go): pdqsort_func in sort/zsortfunc.go, driven by
 * less(i, j) and swap(i, j), and pdqsortCmpFunc in slices/zsortanyfunc.go,
 * driven by cmp(a, b) < 0 and direct element swaps.  The two files were
 * compared for Go 1.19, 1.21, 1.22, 1.23 and 1.24: zsortfunc.go is identical
 * in all of them, zsortanyfunc.go is identical in 1.21-1.24 (it does not
 * exist in 1.19), and both are the same template instance, including
 * breakPatterns' xorshift seeded with the length and nextPowerOfTwo.  So
 * one engine serves both, with "less" being either the caller's less or
 * cmp(a, b) < 0.  Index arithmetic stays in signed ptrdiff_t like Go's int,
 * because the loops rely on j going to -1 or a-1.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "gosort.h"

/* The largest element gh_sort_slice swaps through its stack buffer. */
#define GOSORT_MAX_SIZE 64

/* sortedHint in sort/sort.go. */
enum { UNKNOWN_HINT = 0, INCREASING_HINT, DECREASING_HINT };

typedef struct sorter {
	unsigned char *base;
	size_t size;
	gh_less_fn less;      /* sort.Slice variant, or NULL */
	gh_cmp_fn cmp;        /* slices.SortFunc variant, or NULL */
	void *payload;
} sorter;

static int less(const sorter *s, ptrdiff_t i, ptrdiff_t j)
{
	const void *a = s->base + (size_t)i * s->size;
	const void *b = s->base + (size_t)j * s->size;

	if (s->less != NULL)
		return s->less(a, b, s->payload) != 0;
	return s->cmp(a, b, s->payload) < 0;
}

static void swap(const sorter *s, ptrdiff_t i, ptrdiff_t j)
{
	unsigned char tmp[GOSORT_MAX_SIZE];
	unsigned char *a = s->base + (size_t)i * s->size;
	unsigned char *b = s->base + (size_t)j * s->size;

	/* Go swaps an element with itself too; memcpy must not overlap. */
	if (a == b)
		return;
	memcpy(tmp, a, s->size);
	memcpy(a, b, s->size);
	memcpy(b, tmp, s->size);
}

/* bits.Len(uint(x)): the number of bits needed to represent x. */
static int bits_len(uint64_t x)
{
	int n = 0;

	while (x != 0) {
		n++;
		x >>= 1;
	}
	return n;
}

/* xorshift.Next in sort/sort.go (and slices/sort.go). */
static uint64_t xorshift_next(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 17;
	*r ^= *r << 5;
	return *r;
}

static void insertion_sort(const sorter *s, ptrdiff_t a, ptrdiff_t b)
{
	ptrdiff_t i, j;

	for (i = a + 1; i < b; i++)
		for (j = i; j > a && less(s, j, j - 1); j--)
			swap(s, j, j - 1);
}

static void sift_down(const sorter *s, ptrdiff_t lo, ptrdiff_t hi,
		      ptrdiff_t first)
{
	ptrdiff_t root = lo, child;

	for (;;) {
		child = 2 * root + 1;
		if (child >= hi)
			break;
		if (child + 1 < hi && less(s, first + child, first + child + 1))
			child++;
		if (!less(s, first + root, first + child))
			return;
		swap(s, first + root, first + child);
		root = child;
	}
}

static void heap_sort(const sorter *s, ptrdiff_t a, ptrdiff_t b)
{
	ptrdiff_t first = a, lo = 0, hi = b - a, i;

	for (i = (hi - 1) / 2; i >= 0; i--)
		sift_down(s, i, hi, first);
	for (i = hi - 1; i >= 0; i--) {
		swap(s, first, first + i);
		sift_down(s, lo, i, first);
	}
}

static ptrdiff_t partition(const sorter *s, ptrdiff_t a, ptrdiff_t b,
			   ptrdiff_t pivot, int *already_partitioned)
{
	ptrdiff_t i, j;

	swap(s, a, pivot);
	i = a + 1;
	j = b - 1;
	while (i <= j && less(s, i, a))
		i++;
	while (i <= j && !less(s, j, a))
		j--;
	if (i > j) {
		swap(s, j, a);
		*already_partitioned = 1;
		return j;
	}
	swap(s, i, j);
	i++;
	j--;
	for (;;) {
		while (i <= j && less(s, i, a))
			i++;
		while (i <= j && !less(s, j, a))
			j--;
		if (i > j)
			break;
		swap(s, i, j);
		i++;
		j--;
	}
	swap(s, j, a);
	*already_partitioned = 0;
	return j;
}

static ptrdiff_t partition_equal(const sorter *s, ptrdiff_t a, ptrdiff_t b,
				 ptrdiff_t pivot)
{
	ptrdiff_t i, j;

	swap(s, a, pivot);
	i = a + 1;
	j = b - 1;
	for (;;) {
		while (i <= j && !less(s, a, i))
			i++;
		while (i <= j && less(s, a, j))
			j--;
		if (i > j)
			break;
		swap(s, i, j);
		i++;
		j--;
	}
	return i;
}

static int partial_insertion_sort(const sorter *s, ptrdiff_t a, ptrdiff_t b)
{
	enum { MAX_STEPS = 5, SHORTEST_SHIFTING = 50 };
	ptrdiff_t i = a + 1, k;
	int step;

	for (step = 0; step < MAX_STEPS; step++) {
		while (i < b && !less(s, i, i - 1))
			i++;
		if (i == b)
			return 1;
		if (b - a < SHORTEST_SHIFTING)
			return 0;
		swap(s, i, i - 1);
		/*
		 * Go's loop runs down to index 1, not a+1, even for a
		 * sub-slice; keep that, it decides where ties end up.
		 */
		if (i - a >= 2) {
			for (k = i - 1; k >= 1; k--) {
				if (!less(s, k, k - 1))
					break;
				swap(s, k, k - 1);
			}
		}
		if (b - i >= 2) {
			for (k = i + 1; k < b; k++) {
				if (!less(s, k, k - 1))
					break;
				swap(s, k, k - 1);
			}
		}
	}
	return 0;
}

static void break_patterns(const sorter *s, ptrdiff_t a, ptrdiff_t b)
{
	ptrdiff_t length = b - a, idx, other;
	uint64_t random, modulus;

	if (length < 8)
		return;
	random = (uint64_t)length;
	/* nextPowerOfTwo: 1 << bits.Len(uint(length)). */
	modulus = (uint64_t)1 << bits_len((uint64_t)length);
	for (idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1;
	     idx++) {
		other = (ptrdiff_t)(xorshift_next(&random) & (modulus - 1));
		if (other >= length)
			other -= length;
		swap(s, idx, a + other);
	}
}

static void order2(const sorter *s, ptrdiff_t *a, ptrdiff_t *b, int *swaps)
{
	ptrdiff_t t;

	if (less(s, *b, *a)) {
		(*swaps)++;
		t = *a;
		*a = *b;
		*b = t;
	}
}

static ptrdiff_t median(const sorter *s, ptrdiff_t a, ptrdiff_t b,
			ptrdiff_t c, int *swaps)
{
	order2(s, &a, &b, swaps);
	order2(s, &b, &c, swaps);
	order2(s, &a, &b, swaps);
	return b;
}

static ptrdiff_t median_adjacent(const sorter *s, ptrdiff_t a, int *swaps)
{
	return median(s, a - 1, a, a + 1, swaps);
}

static ptrdiff_t choose_pivot(const sorter *s, ptrdiff_t a, ptrdiff_t b,
			      int *hint)
{
	enum { SHORTEST_NINTHER = 50, MAX_SWAPS = 4 * 3 };
	ptrdiff_t l = b - a;
	ptrdiff_t i = a + l / 4 * 1, j = a + l / 4 * 2, k = a + l / 4 * 3;
	int swaps = 0;

	if (l >= 8) {
		if (l >= SHORTEST_NINTHER) {
			i = median_adjacent(s, i, &swaps);
			j = median_adjacent(s, j, &swaps);
			k = median_adjacent(s, k, &swaps);
		}
		j = median(s, i, j, k, &swaps);
	}
	if (swaps == 0)
		*hint = INCREASING_HINT;
	else if (swaps == MAX_SWAPS)
		*hint = DECREASING_HINT;
	else
		*hint = UNKNOWN_HINT;
	return j;
}

static void reverse_range(const sorter *s, ptrdiff_t a, ptrdiff_t b)
{
	ptrdiff_t i = a, j = b - 1;

	while (i < j) {
		swap(s, i, j);
		i++;
		j--;
	}
}

static void pdqsort(const sorter *s, ptrdiff_t a, ptrdiff_t b, int limit)
{
	enum { MAX_INSERTION = 12 };
	int was_balanced = 1, was_partitioned = 1, hint, already;
	ptrdiff_t length, pivot, mid, left_len, right_len, threshold;

	for (;;) {
		length = b - a;
		if (length <= MAX_INSERTION) {
			insertion_sort(s, a, b);
			return;
		}
		if (limit == 0) {
			heap_sort(s, a, b);
			return;
		}
		if (!was_balanced) {
			break_patterns(s, a, b);
			limit--;
		}
		pivot = choose_pivot(s, a, b, &hint);
		if (hint == DECREASING_HINT) {
			reverse_range(s, a, b);
			pivot = (b - 1) - (pivot - a);
			hint = INCREASING_HINT;
		}
		if (was_balanced && was_partitioned &&
		    hint == INCREASING_HINT) {
			if (partial_insertion_sort(s, a, b))
				return;
		}
		if (a > 0 && !less(s, a - 1, pivot)) {
			a = partition_equal(s, a, b, pivot);
			continue;
		}
		mid = partition(s, a, b, pivot, &already);
		was_partitioned = already;
		left_len = mid - a;
		right_len = b - mid;
		threshold = length / 8;
		if (left_len < right_len) {
			was_balanced = left_len >= threshold;
			pdqsort(s, a, mid, limit);
			a = mid + 1;
		} else {
			was_balanced = right_len >= threshold;
			pdqsort(s, mid + 1, b, limit);
			b = mid;
		}
	}
}

static void run(sorter *s, size_t n)
{
	if (n < 2 || s->size == 0 || s->size > GOSORT_MAX_SIZE)
		return;
	/* sort.Slice and slices.SortFunc: limit = bits.Len(uint(n)). */
	pdqsort(s, 0, (ptrdiff_t)n, bits_len((uint64_t)n));
}

void gh_sort_slice(void *base, size_t n, size_t size, gh_less_fn lessfn,
		   void *payload)
{
	sorter s = { base, size, lessfn, NULL, payload };

	run(&s, n);
}

void gh_slices_sort_func(void *base, size_t n, size_t size, gh_cmp_fn cmp,
			 void *payload)
{
	sorter s = { base, size, NULL, cmp, payload };

	run(&s, n);
}
