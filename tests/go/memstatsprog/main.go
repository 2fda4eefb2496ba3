// memstatsprog: the oracle of tests/run-memstats.sh (go-heap -p memstats).
//
// It builds a heap (tiny, small and large objects, kept alive), settles it
// (runtime.GC, debug.FreeOSMemory), leaves idle threads behind, then
// stays still on a raw read of FIFO (syscall.Read: nothing allocated
// while go-heap reads it, live or from a gcore core) until the test
// writes a byte to it (or kills it: the arm64 core under qemu); released
// with "h" in mode before, it also writes its own heap?debug=1 after a
// line "HEAPTEXT"; released with "j" in mode after, its MemStats as
// encoding/json writes them after a line "JSON".  Its
// runtime.MemStats are printed in the lines of heap?debug=1's trailer
// (runtime/pprof writeHeapInternal), formatted without allocating.  Its
// own heap?debug=1 cannot serve: writing it allocates.
//
//	memstatsprog FIFO before   ReadMemStats at the quiet point, printed
//	                           before READY and the read (every mcache was
//	                           just flushed)
//	memstatsprog FIFO after    the quiet point leaves a few objects of each
//	                           kind in the Ps' cached spans and tiny blocks
//	                           (what readmemstats_m's flushallmcaches folds
//	                           in); ReadMemStats is the first thing the
//	                           released program does, nothing allocated
//	                           between; printed then
//	memstatsprog FIFO churn    four goroutines allocate for ever (the
//	                           consistency of reads under allocation)
//	memstatsprog FIFO bigparent
//	                           touches 512 MiB, then execs itself in mode
//	                           before (the same process: its
//	                           getrusage ru_maxrss keeps the old image's
//	                           peak, its /proc VmHWM is the new image's)
//
// stdout: the trailer's lines ("# runtime.MemStats", "# Alloc = ...", ...,
// "# MaxRSS = ...", getrusage's ru_maxrss x 1024, read at the quiet point,
// before READY, in both modes: the peak when go-heap reads it; the test's
// gcore, after go-heap's reads and before the release, can fault every
// readable mapping in on some kernels)
// and "READY\n" at the quiet point.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
)

type small struct {
	a, b *small
	n    [5]int
}

type noscan [40]int64

var (
	keep   []interface{}
	hot    [64]*small
	hotns  [64]*noscan
	hotb   [64]*[3]byte
	hotl   *[40000]byte
	ms     runtime.MemStats
	ms2    runtime.MemStats
	ru     syscall.Rusage
	rbuf   [1]byte
	sinkMu sync.Mutex
	out    = make([]byte, 0, 64<<10)
)

func line(b []byte, name string, v uint64) []byte {
	b = append(b, "# "...)
	b = append(b, name...)
	b = append(b, " = "...)
	b = strconv.AppendUint(b, v, 10)
	return append(b, '\n')
}

func pair(b []byte, name string, a, v uint64) []byte {
	b = append(b, "# "...)
	b = append(b, name...)
	b = append(b, " = "...)
	b = strconv.AppendUint(b, a, 10)
	b = append(b, " / "...)
	b = strconv.AppendUint(b, v, 10)
	return append(b, '\n')
}

func array(b []byte, name string, v *[256]uint64) []byte {
	b = append(b, "# "...)
	b = append(b, name...)
	b = append(b, " = ["...)
	for i := range v {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendUint(b, v[i], 10)
	}
	return append(b, "]\n"...)
}

// format appends ms (and ru's MaxRSS) as pprof.go's writeHeapInternal
// prints them (fmt's %d and %v: strconv's base 10 and 'g' -1), without
// allocating when b has the capacity.
func format(b []byte) []byte {
	s := &ms
	b = append(b, "# runtime.MemStats\n"...)
	b = line(b, "Alloc", s.Alloc)
	b = line(b, "TotalAlloc", s.TotalAlloc)
	b = line(b, "Sys", s.Sys)
	b = line(b, "Lookups", s.Lookups)
	b = line(b, "Mallocs", s.Mallocs)
	b = line(b, "Frees", s.Frees)
	b = line(b, "HeapAlloc", s.HeapAlloc)
	b = line(b, "HeapSys", s.HeapSys)
	b = line(b, "HeapIdle", s.HeapIdle)
	b = line(b, "HeapInuse", s.HeapInuse)
	b = line(b, "HeapReleased", s.HeapReleased)
	b = line(b, "HeapObjects", s.HeapObjects)
	b = pair(b, "Stack", s.StackInuse, s.StackSys)
	b = pair(b, "MSpan", s.MSpanInuse, s.MSpanSys)
	b = pair(b, "MCache", s.MCacheInuse, s.MCacheSys)
	b = line(b, "BuckHashSys", s.BuckHashSys)
	b = line(b, "GCSys", s.GCSys)
	b = line(b, "OtherSys", s.OtherSys)
	b = line(b, "NextGC", s.NextGC)
	b = line(b, "LastGC", s.LastGC)
	b = array(b, "PauseNs", &s.PauseNs)
	b = array(b, "PauseEnd", &s.PauseEnd)
	b = line(b, "NumGC", uint64(s.NumGC))
	b = line(b, "NumForcedGC", uint64(s.NumForcedGC))
	b = append(b, "# GCCPUFraction = "...)
	b = strconv.AppendFloat(b, s.GCCPUFraction, 'g', -1, 64)
	b = append(b, "\n# DebugGC = "...)
	b = strconv.AppendBool(b, s.DebugGC)
	b = append(b, '\n')
	return line(b, "MaxRSS", uint64(ru.Maxrss)*1024)
}

func build() {
	for i := 0; i < 2000; i++ {
		keep = append(keep, &small{n: [5]int{i}})
		keep = append(keep, new(noscan))
		b := new([3]byte)
		b[0] = byte(i)
		keep = append(keep, b)
		if i%100 == 0 {
			keep = append(keep, make([]byte, 70000+i))
		}
		if i%3 == 0 {
			keep = append(keep, fmt.Sprintf("s%d", i))
		}
	}
	// garbage: frees for the counters
	for i := 0; i < 5000; i++ {
		_ = make([]byte, 100+i%300)
	}
}

// spareMs leaves idle threads (Ms) behind so that go-heap's stop and
// gcore's do not make the runtime allocate an m afterwards.
func spareMs() {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			ts := syscall.Timespec{Nsec: 20e6}
			syscall.Nanosleep(&ts, nil)
			wg.Done()
		}()
	}
	wg.Wait()
}

func main() {
	if len(os.Args) != 3 || (os.Args[2] != "before" && os.Args[2] != "after" &&
		os.Args[2] != "churn" && os.Args[2] != "bigparent") {
		os.Stderr.WriteString("usage: memstatsprog FIFO before|after|churn|bigparent\n")
		os.Exit(2)
	}
	if os.Args[2] == "bigparent" {
		// a large image (512 MiB resident), then exec: the kernel
		// keeps its peak in the process's maxrss (exec_mmap)
		big := make([]byte, 512<<20)
		for i := 0; i < len(big); i += 4096 {
			big[i] = 1
		}
		exe, err := os.Executable()
		if err != nil {
			panic(err)
		}
		err = syscall.Exec(exe, []string{os.Args[0], os.Args[1], "before"}, os.Environ())
		panic(err)
	}
	fd, err := syscall.Open(os.Args[1], syscall.O_RDWR, 0)
	if err != nil {
		panic(err)
	}
	after := os.Args[2] == "after"
	if os.Args[2] == "churn" {
		// four goroutines allocate and drop objects for ever (GCs
		// included) while go-heap reads
		build()
		for g := 0; g < 4; g++ {
			go func(g int) {
				var live [256]interface{}
				for i := 0; ; i++ {
					switch i % 4 {
					case 0:
						live[i%256] = &small{}
					case 1:
						live[i%256] = new(noscan)
					case 2:
						live[i%256] = make([]byte, 8+i%64)
					default:
						live[i%256] = make([]byte, 33000+g)
					}
				}
			}(g)
		}
		syscall.Write(1, []byte("READY\n"))
		for {
			syscall.Read(fd, rbuf[:])
		}
	}
	spareMs()
	build()
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	// let the background sweeper free the last GC's workbufs (32 KiB
	// spans from GCSys back to the heap: a loaded machine delayed it past
	// the quiet point): yield until two reads around a yield agree
	for k := 0; k < 50; k++ {
		runtime.ReadMemStats(&ms)
		runtime.Gosched()
		ts := syscall.Timespec{Nsec: 2e6}
		syscall.Nanosleep(&ts, nil)
		runtime.Gosched()
		runtime.ReadMemStats(&ms2)
		if ms2 == ms {
			break
		}
	}
	ready := []byte("READY\n")
	if !after {
		// until two reads agree: the runtime settles (a stack span
		// going back to the heap, a first spanSet spine) before READY
		runtime.ReadMemStats(&ms)
		for k := 0; k < 10; k++ {
			runtime.ReadMemStats(&ms2)
			if ms2 == ms {
				break
			}
			ms = ms2
		}
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		// formatted into out's capacity: nothing allocated
		syscall.Write(1, format(out[:0]))
	} else {
		// objects in the Ps' cached spans and tiny blocks
		for i := range hot {
			hot[i] = &small{}
			hotns[i] = new(noscan)
			hotb[i] = new([3]byte)
		}
		hotl = new([40000]byte)
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	}
	syscall.Write(1, ready)
	syscall.Read(fd, rbuf[:])
	if after {
		runtime.ReadMemStats(&ms)
	} else {
		// the bracket: did the runtime move (a background sweep freeing
		// workbufs, a stack span) between the quiet point's MemStats and
		// now, go-heap's reads in between?  Then those are not the
		// program's state at go-heap's instant: say which fields moved
		runtime.ReadMemStats(&ms2)
		if ms2 != ms {
			a, b := reflect.ValueOf(ms), reflect.ValueOf(ms2)
			moved := "MOVED"
			for i := 0; i < a.NumField(); i++ {
				if a.Field(i).Kind() == reflect.Uint64 &&
					a.Field(i).Uint() != b.Field(i).Uint() {
					moved += fmt.Sprintf(" %s %d->%d", a.Type().Field(i).Name,
						a.Field(i).Uint(), b.Field(i).Uint())
				}
			}
			os.Stdout.WriteString(moved + "\n")
		}
	}
	if after {
		os.Stdout.Write(format(out[:0]))
		if len(rbuf) > 0 && rbuf[0] == 'j' {
			// released with "j": the same MemStats as encoding/json
			// writes them (-p memstats -f json's oracle)
			j, err := json.Marshal(&ms)
			if err != nil {
				panic(err)
			}
			os.Stdout.WriteString("JSON\n" + string(j) + "\n")
		}
	} else if len(rbuf) > 0 && rbuf[0] == 'h' {
		// released with "h": its own heap?debug=1, after a marker
		os.Stdout.WriteString("HEAPTEXT\n")
		pprof.Lookup("heap").WriteTo(os.Stdout, 1)
	}
	runtime.KeepAlive(keep)
	sinkMu.Lock()
	sinkMu.Unlock()
}
