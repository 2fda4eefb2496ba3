// Command leakgc times, in the process, what Go 1.27's own goroutine leak
// profile costs against a plain runtime.GC on a heap like bench/retainbench's
// (N small objects: a tenth in a global map, the rest a list) with a few
// leaked goroutines: pprof.Lookup("goroutineleak").WriteTo(io.Discard, 1)
// runs a leak-detection GC (stop-the-world phases included) then writes.
// Prints "GC <median s>" and "LEAKPROFILE <median s>" (or NOPROFILE).
//
// Usage: leakgc -n N -runs R   (bench/goroutineleak-bench.sh)
package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/pprof"
	"sort"
	"time"
)

type node struct {
	next *node
	v    int
}

var (
	head *node
	m    = map[int]*node{}
)

func median(f func(), runs int) float64 {
	var ts []float64
	for i := 0; i < runs; i++ {
		t0 := time.Now()
		f()
		ts = append(ts, time.Since(t0).Seconds())
	}
	sort.Float64s(ts)
	return ts[len(ts)/2]
}

func main() {
	n := flag.Int("n", 1000000, "objects (approximately)")
	runs := flag.Int("runs", 3, "timed runs")
	flag.Parse()
	for i := 0; i < *n; i++ {
		x := &node{next: head, v: i}
		if i%10 == 0 {
			m[i] = x
		} else {
			head = x
		}
	}
	for i := 0; i < 8; i++ {
		ch := make(chan int)
		go func() { <-ch }()
	}
	time.Sleep(100 * time.Millisecond)
	fmt.Printf("GC %.6f\n", median(runtime.GC, *runs))
	p := pprof.Lookup("goroutineleak")
	if p == nil {
		fmt.Println("NOPROFILE")
		return
	}
	fmt.Printf("LEAKPROFILE %.6f\n", median(func() { p.WriteTo(io.Discard, 1) }, *runs))
}
