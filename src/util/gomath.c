/*
 * gomath.c - Go's math.Exp per architecture, int64(float64) rules and
 * scaleHeapSample (gomath.h).
 */
#include "config.h"

#include <elf.h>
#include <math.h>
#include <string.h>

#include "gomath.h"

int gh_f2i_rule(unsigned machine)
{
	if (machine == 0) {
#if defined(__aarch64__)
		machine = EM_AARCH64;
#else
		machine = EM_X86_64;
#endif
	}
	return machine == EM_AARCH64 ? GH_F2I_ARM64 : GH_F2I_X86;
}

void gh_scale_heap_sample(int64_t count, int64_t size, int64_t rate, int impl,
			  int64_t *out_count, int64_t *out_size)
{
	double avg, scale;
	int rule;

	if (count == 0 || size == 0) {
		*out_count = 0;
		*out_size = 0;
		return;
	}
	if (rate <= 1) {
		/* rate==1: everything sampled; rate<1: unknown, no scaling */
		*out_count = count;
		*out_size = size;
		return;
	}
	avg = (double)size / (double)count;
	scale = 1 / (1 - gh_go_exp(-avg / (double)rate, impl));
	/* Only arm64's math.Exp is GH_GOEXP_ARM64, and only arm64 has the
	 * arm64 conversion rule. */
	rule = impl == GH_GOEXP_ARM64 ? GH_F2I_ARM64 : GH_F2I_X86;
	*out_count = gh_go_f2i64((double)count * scale, rule);
	*out_size = gh_go_f2i64((double)size * scale, rule);
}

/* ---- Go's math.Exp ------------------------------------------------------ */

/*
 * math.Exp calls archExp on amd64, arm64 and s390x (exp_asm.go,
 * haveArchExp), the pure-Go exp elsewhere.  The three ports below follow
 * Go 1.19-1.24's src/math/exp.go, exp_amd64.s and exp_arm64.s (identical
 * in those releases) instruction by instruction; fma() stands for the
 * fused instructions and nothing else may be fused.  They agree with Go
 * bit for bit on the table in tests/test_pb.c (tests/go/scalecheck).
 * Not covered: s390x's assembly, and pure-Go exp on ports where the Go
 * compiler itself fuses a*b+c (ppc64le, riscv64, loong64).
 */

static double bits_f64(uint64_t u)
{
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

static uint64_t f64_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

/* math.Ldexp (src/math/ldexp.go, pure Go on every GOARCH but s390x). */
static double go_ldexp(double frac, int64_t exp)
{
	uint64_t x;
	double m = 1;

	if (frac == 0 || isinf(frac) || isnan(frac))
		return frac;
	if (fabs(frac) < 2.2250738585072014e-308) { /* normalize */
		frac *= (double)(1ULL << 52);
		exp -= 52;
	}
	x = f64_bits(frac);
	exp += (int64_t)((x >> 52) & 0x7ff) - 1023;
	if (exp < -1075)
		return copysign(0, frac);
	if (exp > 1023)
		return frac < 0 ? -INFINITY : INFINITY;
	if (exp < -1022) {
		exp += 53;
		m = 1.0 / (double)(1ULL << 53);
	}
	x &= ~((uint64_t)0x7ff << 52);
	x |= (uint64_t)(exp + 1023) << 52;
	return m * bits_f64(x);
}

/* src/math/exp.go: exp and expmulti (FreeBSD e_exp.c). */
static double go_exp_generic(double x)
{
	const double Ln2Hi = 6.93147180369123816490e-01;
	const double Ln2Lo = 1.90821492927058770002e-10;
	const double Log2e = 1.44269504088896338700e+00;
	const double Overflow = 7.09782712893383973096e+02;
	const double Underflow = -7.45133219101941108420e+02;
	const double NearZero = 1.0 / (1 << 28);
	const double P1 = 1.66666666666666657415e-01;
	const double P2 = -2.77777777770155933842e-03;
	const double P3 = 6.61375632143793436117e-05;
	const double P4 = -1.65339022054652515390e-06;
	const double P5 = 4.13813679705723846039e-08;
	double hi, lo, r, t, c, y;
	int64_t k = 0;

	if (isnan(x) || (isinf(x) && x > 0))
		return x;
	if (isinf(x))
		return 0;
	if (x > Overflow)
		return INFINITY;
	if (x < Underflow)
		return 0;
	if (-NearZero < x && x < NearZero)
		return 1 + x;
	if (x < 0)
		k = (int64_t)(Log2e * x - 0.5);
	else if (x > 0)
		k = (int64_t)(Log2e * x + 0.5);
	hi = x - (double)k * Ln2Hi;
	lo = (double)k * Ln2Lo;
	/* expmulti */
	r = hi - lo;
	t = r * r;
	c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
	y = 1 - ((lo - (r * c) / (2 - c)) - hi);
	return go_ldexp(y, k);
}

/* CVTSD2SL: round to nearest even, 0x80000000 when out of range. */
static int32_t cvtsd2sl(double v)
{
	double r = nearbyint(v);

	if (r >= -2147483648.0 && r <= 2147483647.0)
		return (int32_t)r;
	return INT32_MIN;
}

/*
 * src/math/exp_amd64.s: Shibata's method (SLEEF), a different algorithm
 * from exp.go: reduce by k*ln2 split in two, divide by 16, a degree-8
 * Taylor polynomial, square four times ((2+y)*y is (1+y)^2-1), then scale
 * by 2^k.  With fma the reduction and the Horner steps are fused
 * (VFNMADD231SD, VFMADD213SD), as is the last (2+y)*y+1.
 */
static double go_exp_amd64(double x, int use_fma)
{
	const double LN2U = 0.69314718055966295651160180568695068359375;
	const double LN2L =
		0.28235290563031577122588448175013436025525412068e-12;
	const double LOG2E = 1.4426950408889634073599246810018920;
	const double Overflow = 7.09782712893384e+02;
	const double c[] = {                 /* exprodata<>+24 .. +64 */
		1.6666666666666666667e-1, 4.1666666666666666667e-2,
		8.3333333333333333333e-3, 1.3888888888888888889e-3,
		1.9841269841269841270e-4, 2.4801587301587301587e-5,
	};
	uint64_t bx = f64_bits(x);
	double x0 = x, x1, kd;
	int64_t e;
	int i;

	if ((bx & ~(1ULL << 63)) >= 0x7FF0000000000000ULL) {
		/* notFinite: -Inf gives 0, NaN and +Inf themselves */
		return bx == 0xFFF0000000000000ULL ? 0 : x;
	}
	if (x0 > Overflow)
		return INFINITY;
	x1 = LOG2E * x0;
	e = cvtsd2sl(x1);
	kd = (double)e;
	if (use_fma) {
		x0 = fma(-kd, LN2U, x0);
		x0 = fma(-kd, LN2L, x0);
	} else {
		x0 = x0 - LN2U * kd;
		x0 = x0 - LN2L * kd;
	}
	x0 = x0 * 0.0625;
	x1 = c[5];
	for (i = 4; i >= 0; i--)
		x1 = use_fma ? fma(x0, x1, c[i]) : x1 * x0 + c[i];
	x1 = use_fma ? fma(x0, x1, 0.5) : x1 * x0 + 0.5;
	x1 = use_fma ? fma(x0, x1, 1.0) : x1 * x0 + 1.0;
	x0 = x0 * x1;
	for (i = 0; i < 3; i++) {
		x1 = 2.0 + x0;
		x0 = x0 * x1;
	}
	x1 = 2.0 + x0;
	x0 = use_fma ? fma(x1, x0, 1.0) : x0 * x1 + 1.0;
	/* ldexp: return fr * 2**exponent */
	e += 0x3FF;
	if (e <= 0) {
		/* denormal */
		if (e < -52)
			return 0;
		x0 = x0 * bits_f64((uint64_t)(e + 0x3FE) << 52);
		e = 1;
	} else if (e >= 0x7FF) {
		return INFINITY;
	}
	return x0 * bits_f64((uint64_t)e << 52);
}

/*
 * src/math/exp_arm64.s: exp.go's algorithm, but with the reduction and
 * the polynomial fused (FNMSUBD/FMADDD/FMSUBD) and Ldexp inlined without
 * its checks.
 */
static double go_exp_arm64(double x)
{
	const double Ln2Hi = 6.93147180369123816490e-01;
	const double Ln2Lo = 1.90821492927058770002e-10;
	const double Log2e = 1.44269504088896338700e+00;
	const double Overflow = 7.09782712893383973096e+02;
	const double Underflow = -7.45133219101941108420e+02;
	const double P1 = 1.66666666666666657415e-01;
	const double P2 = -2.77777777770155933842e-03;
	const double P3 = 6.61375632143793436117e-05;
	const double P4 = -1.65339022054652515390e-06;
	const double P5 = 4.13813679705723846039e-08;
	double kf, hi, lo, r, t, p, c, y, m = 1.0;
	int64_t k, e;
	uint64_t bits;

	if (isnan(x))
		return x;
	if (x > Overflow)
		return INFINITY;
	if (x < Underflow)
		return 0;
	if (fabs(x) < bits_f64(0x3e30000000000000ULL))   /* 2**-28 */
		return 1.0 + x;
	/* FNMSUBD: Log2e*x-0.5; FMADDD: Log2e*x+0.5; FCSELD on x < 0 */
	kf = x < 0 ? fma(Log2e, x, -0.5) : fma(Log2e, x, 0.5);
	k = (int64_t)kf;                                 /* FCVTZSD */
	kf = (double)k;
	hi = fma(-Ln2Hi, kf, x);                         /* FMSUBD */
	lo = kf * Ln2Lo;
	r = hi - lo;
	t = r * r;
	p = fma(P5, t, P4);
	p = fma(p, t, P3);
	p = fma(p, t, P2);
	p = fma(p, t, P1);
	c = fma(-p, t, r);                               /* FMSUBD */
	y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
	/* inlined Ldexp(y, k) */
	bits = f64_bits(y);
	e = (int64_t)(bits >> 52) + k;
	if (e < 1) {
		e += 52;
		m = bits_f64(0x3cb0000000000000ULL);     /* 2**-52 */
	}
	bits = (bits & 0x000fffffffffffffULL) | ((uint64_t)e << 52);
	return bits_f64(bits) * m;
}

double gh_go_exp(double x, int impl)
{
	switch (impl) {
	case GH_GOEXP_AMD64:
		return go_exp_amd64(x, 0);
	case GH_GOEXP_AMD64_FMA:
		return go_exp_amd64(x, 1);
	case GH_GOEXP_ARM64:
		return go_exp_arm64(x);
	default:
		return go_exp_generic(x);
	}
}

/* internal/cpu's X86.HasAVX && X86.HasFMA, for the host CPU. */
static int host_has_avx_fma(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx") && __builtin_cpu_supports("fma");
#else
	/* Not on x86: assume a target CPU of the last ten years. */
	return 1;
#endif
}

int gh_go_exp_impl(unsigned machine)
{
	if (machine == 0) {
#if defined(__x86_64__)
		machine = EM_X86_64;
#elif defined(__aarch64__)
		machine = EM_AARCH64;
#endif
	}
	switch (machine) {
	case EM_X86_64:
		/* exp_amd64.go: useFMA, decided by the CPU at run time.
		 * A live target runs on this CPU; a core's CPU is unknown. */
		return host_has_avx_fma() ? GH_GOEXP_AMD64_FMA : GH_GOEXP_AMD64;
	case EM_AARCH64:
		return GH_GOEXP_ARM64;
	default:
		return GH_GOEXP_GENERIC;
	}
}
