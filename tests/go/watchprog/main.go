// watchprog: a steady allocator for tests/run-watch.sh.
//
// Usage: watchprog [-rate BYTES_PER_SECOND] [-memprofilerate N]
//
// It sets runtime.MemProfileRate, prints "READY PID", then every 50 ms
// allocates rate/20 bytes as 1 KiB objects (keeping the last 256 alive, so
// there is something in use) and runs a GC every 250 ms, so that the heap
// profile the runtime publishes (as of the last GC) follows the allocation
// rate closely.  It runs until killed.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"
)

var keep [256][]byte

//go:noinline
func alloc1k() []byte { return make([]byte, 1024) }

func main() {
	rate := flag.Int("rate", 4<<20, "bytes allocated per second")
	mpr := flag.Int("memprofilerate", 4096, "runtime.MemProfileRate")
	flag.Parse()
	runtime.MemProfileRate = *mpr
	fmt.Printf("READY %d\n", os.Getpid())
	per := *rate / 20 / 1024
	tick := time.NewTicker(50 * time.Millisecond)
	n := 0
	for i := 0; ; i++ {
		<-tick.C
		for j := 0; j < per; j++ {
			keep[n%len(keep)] = alloc1k()
			n++
		}
		if i%5 == 4 {
			runtime.GC()
		}
	}
}
