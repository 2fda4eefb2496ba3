// gordeep.go: the deep, varied stacks of bench/gor-bench.sh's second
// fixture, built together with gorbench.go (go build gorbench.go
// gordeep.go; then gorbench -shape deep).  Standard library only.
//
// Goroutine i descends through a path of 20 to 60 logical frames before
// it parks as gorbench's flat shape does (channel, select, Mutex, Cond,
// Sleep, WaitGroup): its path (one of 251) picks, at each level, one of
// many distinct functions: plain non-inlined ones with frames of
// different sizes, hosts whose callees are inlined into them (two and
// three logical frames in one physical frame), generic functions and a
// generic method instantiated with several types (shape-named frames),
// closures, value- and pointer-receiver methods called through an
// interface.  About 1 500 distinct stacks (251 paths x 6 ways to park).
package main

import "sync/atomic"

var deepSink int64

func init() { shapes["deep"] = parkDeep }

// deepPath and deepDepth: goroutine i's path (0..250) and its levels
// (6..21, one to four frames each: ~20 to 60 frames with the parking).
func deepPath(i int) int  { return i % 251 }
func deepDepth(i int) int { return 6 + (deepPath(i)*31)%16 }

// pick: the function of level d on path p (a mixed hash: paths do not
// fall into short cycles of one function)
func pick(p, d int) uint32 {
	h := uint32(p*73856093) ^ uint32(d*19349663)
	h ^= h >> 13
	h *= 0x5bd1e995
	h ^= h >> 15
	return h % 40
}

func parkDeep(i int) { step(i, deepPath(i), deepDepth(i)) }

// step: one level of goroutine i's descent (p its path, d the levels
// left); not inlined (a switch this large is over the inliner's budget).
func step(i, p, d int) {
	if d <= 0 {
		parkFn(i)()
		return
	}
	switch pick(p, d) {
	case 0:
		plain0(i, p, d-1)
	case 1:
		plain1(i, p, d-1)
	case 2:
		plain2(i, p, d-1)
	case 3:
		plain3(i, p, d-1)
	case 4:
		plain4(i, p, d-1)
	case 5:
		plain5(i, p, d-1)
	case 6:
		plain6(i, p, d-1)
	case 7:
		plain7(i, p, d-1)
	case 8:
		plain8(i, p, d-1)
	case 9:
		plain9(i, p, d-1)
	case 10:
		plain10(i, p, d-1)
	case 11:
		plain11(i, p, d-1)
	case 12:
		plain12(i, p, d-1)
	case 13:
		plain13(i, p, d-1)
	case 14:
		plain14(i, p, d-1)
	case 15:
		plain15(i, p, d-1)
	case 16:
		host0(i, p, d-1)
	case 17:
		host1(i, p, d-1)
	case 18:
		host2(i, p, d-1)
	case 19:
		host3(i, p, d-1)
	case 20:
		host4(i, p, d-1)
	case 21:
		host5(i, p, d-1)
	case 22:
		gen(int64(d), i, p, d-1)
	case 23:
		gen("s", i, p, d-1)
	case 24:
		gen(pair{d, p}, i, p, d-1)
	case 25:
		gen(&deepSink, i, p, d-1)
	case 26:
		box[int]{d}.walk(i, p, d-1)
	case 27:
		box[string]{"b"}.walk(i, p, d-1)
	case 28:
		clos0(i, p, d-1)
	case 29:
		clos1(i, p, d-1)
	case 30:
		clos2(i, p, d-1)
	case 31:
		clos3(i, p, d-1)
	case 32:
		walkers[(p+d)%len(walkers)].walk(i, p, d-1)
	case 33:
		walkers[(p+d)%len(walkers)].walk(i, p, d-1)
	case 34:
		walkers[(p+d)%len(walkers)].walk(i, p, d-1)
	case 35:
		walkers[(p+d)%len(walkers)].walk(i, p, d-1)
	case 36:
		rec(i, p, d-1, 2)
	case 37:
		rec(i, p, d-1, 0)
	case 38:
		plain3(i, p, d-1)
	case 39:
		host2(i, p, d-1)
	}
	atomic.AddInt64(&deepSink, 1)
}

//go:noinline
func plain0(i, p, d int) {
	step(i, p, d)
	atomic.AddInt64(&deepSink, 0)
}

//go:noinline
func plain1(i, p, d int) {
	var b [8]byte
	b[(i+d)%8] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%8]))
}

//go:noinline
func plain2(i, p, d int) {
	var b [16]byte
	b[(i+d)%16] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%16]))
}

//go:noinline
func plain3(i, p, d int) {
	var b [24]byte
	b[(i+d)%24] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%24]))
}

//go:noinline
func plain4(i, p, d int) {
	var b [40]byte
	b[(i+d)%40] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%40]))
}

//go:noinline
func plain5(i, p, d int) {
	var b [64]byte
	b[(i+d)%64] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%64]))
}

//go:noinline
func plain6(i, p, d int) {
	var b [96]byte
	b[(i+d)%96] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%96]))
}

//go:noinline
func plain7(i, p, d int) {
	var b [128]byte
	b[(i+d)%128] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%128]))
}

//go:noinline
func plain8(i, p, d int) {
	step(i, p, d)
	atomic.AddInt64(&deepSink, 8)
}

//go:noinline
func plain9(i, p, d int) {
	var b [8]byte
	b[(i+d)%8] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%8]))
}

//go:noinline
func plain10(i, p, d int) {
	var b [16]byte
	b[(i+d)%16] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%16]))
}

//go:noinline
func plain11(i, p, d int) {
	var b [24]byte
	b[(i+d)%24] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%24]))
}

//go:noinline
func plain12(i, p, d int) {
	var b [40]byte
	b[(i+d)%40] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%40]))
}

//go:noinline
func plain13(i, p, d int) {
	var b [64]byte
	b[(i+d)%64] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%64]))
}

//go:noinline
func plain14(i, p, d int) {
	var b [96]byte
	b[(i+d)%96] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%96]))
}

//go:noinline
func plain15(i, p, d int) {
	var b [128]byte
	b[(i+d)%128] = byte(p)
	step(i, p, d)
	atomic.AddInt64(&deepSink, int64(b[d%128]))
}

// inlined chains: hostK is a physical frame; innerK and its callee are
// inlined into it (logical frames of their own in a traceback)
func leaf0(i, p, d int) { step(i, p, d) }

func inner0(i, p, d int) {
	if d%2 == 0 {
		atomic.AddInt64(&deepSink, 1)
	}
	leaf0(i, p, d)
}

//go:noinline
func host0(i, p, d int) {
	inner0(i, p, d)
	atomic.AddInt64(&deepSink, 2)
}

func inner1(i, p, d int) {
	atomic.AddInt64(&deepSink, 1)
	step(i, p, d)
}

//go:noinline
func host1(i, p, d int) {
	inner1(i, p, d)
	atomic.AddInt64(&deepSink, 2)
}

func leaf2(i, p, d int) { step(i, p, d) }

func inner2(i, p, d int) {
	if d%4 == 0 {
		atomic.AddInt64(&deepSink, 1)
	}
	leaf2(i, p, d)
}

//go:noinline
func host2(i, p, d int) {
	inner2(i, p, d)
	atomic.AddInt64(&deepSink, 2)
}

func inner3(i, p, d int) {
	atomic.AddInt64(&deepSink, 3)
	step(i, p, d)
}

//go:noinline
func host3(i, p, d int) {
	inner3(i, p, d)
	atomic.AddInt64(&deepSink, 2)
}

func leaf4(i, p, d int) { step(i, p, d) }

func inner4(i, p, d int) {
	if d%6 == 0 {
		atomic.AddInt64(&deepSink, 1)
	}
	leaf4(i, p, d)
}

//go:noinline
func host4(i, p, d int) {
	inner4(i, p, d)
	atomic.AddInt64(&deepSink, 2)
}

func inner5(i, p, d int) {
	atomic.AddInt64(&deepSink, 5)
	step(i, p, d)
}

//go:noinline
func host5(i, p, d int) {
	inner5(i, p, d)
	atomic.AddInt64(&deepSink, 2)
}

type pair struct{ a, b int }

//go:noinline
func gen[T any](v T, i, p, d int) {
	step(i, p, d)
	keep(v)
}

//go:noinline
func keep(v any) {
	if v == nil {
		atomic.AddInt64(&deepSink, 1)
	}
}

type box[T any] struct{ v T }

//go:noinline
func (b box[T]) walk(i, p, d int) {
	step(i, p, d)
	keep(b.v)
}

// closures, called through a non-inlined caller so that each stays a
// frame of its own (main.closK.func1)
//
//go:noinline
func call(f func()) { f() }

//go:noinline
func clos0(i, p, d int) {
	n := 0
	call(func() {
		step(i, p, d)
		atomic.AddInt64(&deepSink, int64(n+d))
	})
}

//go:noinline
func clos1(i, p, d int) {
	n := 1
	call(func() {
		step(i, p, d)
		atomic.AddInt64(&deepSink, int64(n+d))
	})
}

//go:noinline
func clos2(i, p, d int) {
	n := 2
	call(func() {
		step(i, p, d)
		atomic.AddInt64(&deepSink, int64(n+d))
	})
}

//go:noinline
func clos3(i, p, d int) {
	n := 3
	call(func() {
		step(i, p, d)
		atomic.AddInt64(&deepSink, int64(n+d))
	})
}

type walker interface{ walk(i, p, d int) }

type vwalk struct{ n int }
type pwalk struct{ n [4]int }
type vwalk2 int
type pwalk2 struct{ s string }

//go:noinline
func (w vwalk) walk(i, p, d int) { step(i, p, d); atomic.AddInt64(&deepSink, int64(w.n)) }

//go:noinline
func (w *pwalk) walk(i, p, d int) { step(i, p, d); w.n[d%4]++ }

//go:noinline
func (w vwalk2) walk(i, p, d int) { step(i, p, d); atomic.AddInt64(&deepSink, int64(w)) }

//go:noinline
func (w *pwalk2) walk(i, p, d int) { step(i, p, d); atomic.AddInt64(&deepSink, int64(len(w.s))) }

var walkers = []walker{vwalk{1}, &pwalk{}, vwalk2(3), &pwalk2{"w"}}

// rec: a directly recursive function, k more levels of itself
//
//go:noinline
func rec(i, p, d, k int) {
	if k > 0 && d > 0 {
		rec(i, p, d-1, k-1)
	} else {
		step(i, p, d)
	}
	atomic.AddInt64(&deepSink, 1)
}
