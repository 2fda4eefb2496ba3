// Command scalecheck prints runtime/pprof's scaleHeapSample (protomem.go)
// and math.Exp for a fixed list of inputs, so that tests/test_pb.c can check
// gh_scale_heap_sample and gh_go_exp bit for bit.
//
// math.Exp has four implementations that matter: the pure-Go one
// (src/math/exp.go; e.g. 386), amd64 assembly without and with FMA
// (exp_amd64.s, chosen at run time by cpu.X86.HasAVX && HasFMA), and arm64
// assembly (exp_arm64.s).  gen.sh runs this program once per implementation
// (GOARCH=386, GODEBUG=cpu.fma=off, native amd64, GOARCH=arm64 under qemu)
// and joins the columns.
//
// Output: one line per input, "s count size rate outcount outsize" or
// "e xbits expbits" (hex float64 bits).
package main

import (
	"fmt"
	"math"
)

// scaleHeapSample is copied from Go 1.22 src/runtime/pprof/protomem.go.
func scaleHeapSample(count, size, rate int64) (int64, int64) {
	if count == 0 || size == 0 {
		return 0, 0
	}
	if rate <= 1 {
		return count, size
	}
	avgSize := float64(size) / float64(count)
	scale := 1 / (1 - math.Exp(-avgSize/float64(rate)))
	return int64(float64(count) * scale), int64(float64(size) * scale)
}

// xorshift64* keeps the input list independent of math/rand's history.
type rng uint64

func (r *rng) next() uint64 {
	x := uint64(*r)
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*r = rng(x)
	return x * 2685821657736338717
}

func main() {
	var triples [][3]int64
	add := func(c, s, r int64) { triples = append(triples, [3]int64{c, s, r}) }
	add(0, 0, 524288)
	add(0, 100, 524288)
	add(5, 0, 524288)
	add(3, 300, 1)
	add(3, 300, 0)
	add(3, 300, -7)
	sizes := []int64{8, 16, 24, 32, 48, 64, 96, 112, 128, 256, 512, 1024,
		2048, 4096, 8192, 16384, 32768, 65536, 1 << 20, 10 << 20, 1 << 30}
	for _, sz := range sizes {
		for _, c := range []int64{1, 3, 12345} {
			for _, r := range []int64{2, 524288} {
				add(c, c*sz, r)
			}
		}
	}
	g := rng(0x9e3779b97f4a7c15)
	for i := 0; i < 150; i++ {
		c := int64(g.next()%100000) + 1
		avg := int64(g.next()%(1<<uint(g.next()%28))) + 1
		rates := []int64{524288, 512, 1 << uint(g.next()%24)}
		add(c, c*avg+int64(g.next()%uint64(c)), rates[g.next()%3])
	}
	for _, t := range triples {
		oc, os := scaleHeapSample(t[0], t[1], t[2])
		fmt.Printf("s %d %d %d %d %d\n", t[0], t[1], t[2], oc, os)
	}
	xs := []float64{0, -0.0, 1e-9, -1e-9, 1, -1, 0.5, -0.5, 2, 10, -10,
		700, 709.7, 709.8, 710, -700, -745, -745.2, -746, -1e10, 1e10,
		math.Ln2, -math.Ln2, 3.75e-9, -3.7252902984e-09, -708.4, -720, -740,
		math.Inf(1), math.Inf(-1)}
	for i := 0; i < 2000; i++ {
		// Mostly the range scaleHeapSample uses: -avg/rate.
		m := float64(g.next()>>11) / (1 << 53)
		switch i % 4 {
		case 0:
			xs = append(xs, -m*20)
		case 1:
			xs = append(xs, -m*1e-3)
		case 2:
			xs = append(xs, (m-0.5)*1400)
		default:
			xs = append(xs, -m*1e-6)
		}
	}
	for _, x := range xs {
		fmt.Printf("e %016x %016x\n", math.Float64bits(x), math.Float64bits(math.Exp(x)))
	}
}
