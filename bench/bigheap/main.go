// Command bigheap holds a heap of a given size (mostly untouched, so that a
// kernel core of it is large but sparse) plus a few thousand profiled
// allocations, prints READY and waits: the target of bench/core-bench.sh.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"
)

var keep [][]byte

//go:noinline
func small(i int) []byte { return make([]byte, 64+i%512) }

func main() {
	mib := flag.Int("mib", 256, "MiB of heap to hold")
	flag.Parse()
	runtime.MemProfileRate = 4096
	for i := 0; i < 5000; i++ {
		keep = append(keep, small(i))
	}
	for i := 0; i < *mib; i++ {
		b := make([]byte, 1<<20)
		b[0] = 1 // one touched page per MiB: the rest stays a hole
		keep = append(keep, b)
	}
	runtime.GC()
	fmt.Printf("READY %d\n", os.Getpid())
	for {
		time.Sleep(time.Hour)
	}
}
