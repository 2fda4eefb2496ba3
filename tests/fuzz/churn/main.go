// Command churn is a hostile target for tests/run-hostile.sh: it records every
// allocation (MemProfileRate = 1) and keeps creating new heap profile buckets
// as fast as it can, from four goroutines, by allocating from many distinct
// (stack depth, size) pairs, so that go-heap walks runtime.mbuckets while the
// runtime is pushing new buckets onto its head.  It prints
// "READY <pid>" once the first few thousand buckets exist and runs until killed.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
)

var sink atomic.Value

//go:noinline
func alloc(depth, size int) []byte {
	if depth > 0 {
		return alloc(depth-1, size)
	}
	return make([]byte, size)
}

func churn(seed int) {
	for i := seed; ; i += 7 {
		sink.Store(alloc(i%40, 1+(i*131)%65536))
	}
}

func main() {
	runtime.MemProfileRate = 1
	for i := 0; i < 4000; i++ {
		sink.Store(alloc(i%40, 1+i))
	}
	for g := 0; g < 4; g++ {
		go churn(g)
	}
	fmt.Printf("READY %d\n", os.Getpid())
	select {}
}
