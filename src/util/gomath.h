/*
 * gomath.h - Go's floating-point arithmetic where runtime/pprof's output
 * depends on its last bit: math.Exp per target architecture, int64(float64)
 * with each architecture's out-of-range rule, and scaleHeapSample built on
 * them.  One module, so that every writer and `go-heap watch` scale a heap
 * sample the same way, with the target's machine as a parameter (an arm64
 * core read on amd64 is scaled as arm64 scales it).
 */
#ifndef GH_GOMATH_H
#define GH_GOMATH_H

#include <stdint.h>

/*
 * The Go spec leaves the conversion of an out-of-range float (NaN, +-Inf,
 * |f| >= 2^63) to int64 implementation-specific, and runtime/pprof meets
 * it: scaleHeapSample's int64(float64(count) * scale) and
 * printCountCycleProfile's int64(float64(r.Cycles) / cpuGHz) overflow on
 * hostile or damaged counts.  The compiler emits one instruction:
 *
 *   GH_F2I_X86    amd64 (and 386) CVTTSD2SQ: the "integer indefinite"
 *                 0x8000000000000000 (math.MinInt64) for every
 *                 out-of-range value and NaN;
 *   GH_F2I_ARM64  arm64 FCVTZS: saturates to MinInt64 / MaxInt64, NaN 0.
 *
 * Other ports are given the x86 rule (not verified against them).  In
 * range, every rule truncates toward zero, as C's cast does.
 */
enum gh_f2i_rule {
	GH_F2I_X86 = 0,
	GH_F2I_ARM64 = 1,
};

/* The rule of a Go program for ELF machine `machine` (0 = this host). */
int gh_f2i_rule(unsigned machine);

static inline int64_t gh_go_f2i64(double f, int rule)
{
	if (f >= -9223372036854775808.0 && f < 9223372036854775808.0)
		return (int64_t)f;
	if (rule == GH_F2I_ARM64) {
		if (f != f)
			return 0;
		return f < 0 ? INT64_MIN : INT64_MAX;
	}
	return INT64_MIN;
}

/*
 * Go's math.Exp differs by GOARCH in the last bit: amd64 and arm64 run
 * assembly (amd64 chooses an FMA variant at run time), others pure Go.
 */
enum gh_goexp_impl {
	GH_GOEXP_GENERIC = 0,   /* src/math/exp.go (386, arm, ppc64le, ...) */
	GH_GOEXP_AMD64 = 1,     /* exp_amd64.s without AVX+FMA */
	GH_GOEXP_AMD64_FMA = 2, /* exp_amd64.s with cpu.X86.HasAVX&&HasFMA */
	GH_GOEXP_ARM64 = 3,     /* exp_arm64.s */
};

/* math.Exp(x) as implementation `impl` computes it. */
double gh_go_exp(double x, int impl);
/* The implementation a Go program for ELF machine `machine` (0 = host)
 * running on this host's CPU would use. */
int gh_go_exp_impl(unsigned machine);

/*
 * scaleHeapSample from runtime/pprof/protomem.go, bit for bit, as a
 * program whose math.Exp is `impl` (gh_go_exp_impl of the target's
 * machine) computes it; the int64 conversions follow the same machine.
 */
void gh_scale_heap_sample(int64_t count, int64_t size, int64_t rate, int impl,
			  int64_t *out_count, int64_t *out_size);

#endif
