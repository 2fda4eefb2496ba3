// Command noprof is a Go program with memory profiling disabled by the
// linker: it references neither runtime/pprof nor runtime.MemProfile (nor,
// in 1.23+, runtime.memProfileInternal), so the linker sets
// runtime.disableMemoryProfiling and the runtime sets MemProfileRate to 0 at
// start-up; runtime.mbuckets stays nil.  go-heap must exit 3 on it and name
// --force.  (tests/run-errors.sh)
//
// It allocates steadily in allocateSteadily, prints "READY <pid>" and runs
// until killed.
package main

import (
	"fmt"
	"os"
	"time"
)

var sink [][]byte

//go:noinline
func allocateSteadily(i int) {
	sink = append(sink, make([]byte, 4096+i%1024))
	if len(sink) > 1000 {
		sink = sink[:0]
	}
}

func main() {
	for i := 0; i < 2000; i++ {
		allocateSteadily(i)
	}
	fmt.Printf("READY %d\n", os.Getpid())
	for i := 0; ; i++ {
		allocateSteadily(i)
		if i%100 == 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
}
