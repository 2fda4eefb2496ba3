// growprog: a heap that grows by a known step when told to (tests/run-growth.sh).
//
// main.leak, a global map[int]*Item, holds -base Items from the start; each SIGUSR1 adds -step
// more (Item: 656 bytes with pointers, so 1.22+ types each one exactly by its malloc header)
// and prints "ADDED <step> <total> <start ns> <end ns>" (CLOCK_REALTIME) once they are in.
// main.steady (a global slice of Steady) never changes.  Nothing else allocates an Item or a
// Steady.  -pressure: allocate -pressure-mib 1 MiB Blobs into main.blobs every -pressure-every
// (1 every 20 ms by default) without end (memory pressure tests: until the kernel kills it in
// a cgroup with a limit).  -memlimit N: debug.SetMemoryLimit(N) (GOMEMLIMIT) at the start; READY
// is then followed by "GOMEMLIMIT <the runtime's limit: debug.SetMemoryLimit(-1)>" and "MAPPEDREADY
// <runtime/metrics' /memory/classes/total:bytes - heap/released:bytes>".
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"syscall"
	"time"
)

type Item struct {
	next *Item
	id   int
	pad  [80]uint64
}

type Steady struct {
	p   *int
	pad [70]uint64
}

type Blob struct {
	p    *Blob
	data [1 << 20]byte
}

var (
	leak   = map[int]*Item{}
	steady []*Steady
	blobs  []*Blob
	sink   int
)

func add(n int) {
	k := len(leak)
	for i := 0; i < n; i++ {
		leak[k+i] = &Item{id: k + i}
	}
}

func main() {
	base := flag.Int("base", 1000, "Items made at the start")
	step := flag.Int("step", 500, "Items added per SIGUSR1")
	pressure := flag.Bool("pressure", false, "allocate Blobs without end")
	pmib := flag.Int("pressure-mib", 1, "-pressure: 1 MiB Blobs per tick")
	pevery := flag.Duration("pressure-every", 20*time.Millisecond, "-pressure: the tick")
	memlimit := flag.Int64("memlimit", 0, "debug.SetMemoryLimit (bytes; 0: leave it)")
	flag.Parse()
	// heap profiling on (the runtime sets the rate to 0 in a program that
	// never references runtime.MemProfile)
	runtime.MemProfileRate = 512 * 1024

	ch := make(chan os.Signal, 4)
	signal.Notify(ch, syscall.SIGUSR1)
	add(*base)
	x := 7
	for i := 0; i < 300; i++ {
		steady = append(steady, &Steady{p: &x})
	}
	if *memlimit > 0 {
		debug.SetMemoryLimit(*memlimit)
	}
	runtime.GC()
	fmt.Printf("READY %d\n", os.Getpid())
	if *memlimit > 0 {
		// the runtime's own value (a negative argument only reads it)
		fmt.Printf("GOMEMLIMIT %d\n", debug.SetMemoryLimit(-1))
		// what the runtime compares with it: total - heap/released
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"},
			{Name: "/memory/classes/heap/released:bytes"}}
		metrics.Read(s)
		fmt.Printf("MAPPEDREADY %d\n", s[0].Value.Uint64()-s[1].Value.Uint64())
	}
	if *pressure {
		go func() {
			for {
				for k := 0; k < *pmib; k++ {
					b := &Blob{}
					for i := 0; i < len(b.data); i += 4096 {
						b.data[i] = 1 // resident: the RSS grows too
					}
					blobs = append(blobs, b)
				}
				time.Sleep(*pevery)
			}
		}()
	}
	for range ch {
		t0 := time.Now().UnixNano()
		add(*step)
		t1 := time.Now().UnixNano()
		fmt.Printf("ADDED %d %d %d %d\n", *step, len(leak), t0, t1)
	}
	sink = len(steady)
}
