// gometricsprog: the oracle of tests/run-watch-gometrics.sh (go-heap watch's
// Go collector series).  Standard library only: it computes, at a quiet
// point, what client_golang 1.14's Go collector would export for it
// (prometheus/go_collector.go, go_collector_latest.go: go_memstats_* from
// runtime/metrics through memStatsFromRM, go_gc_duration_seconds from
// debug.ReadGCStats' pause quantiles, go_goroutines = runtime.NumGoroutine,
// go_threads = runtime.ThreadCreateProfile's count, go_info's version),
// prints them as its text format does (strconv 'g', -1: expfmt
// writeFloat), then stays still on a raw read of FIFO (syscall.Read: nothing
// allocated while go-heap reads it) until the test writes a byte or kills
// it.
//
//	gometricsprog FIFO
//
// stdout: "NAME VALUE" lines (the summary's quantiles as
// go_gc_duration_seconds{quantile="Q"}), then "READY".  The numbers are read
// until two reads in a row agree, after the program has blocked in a
// syscall once (so that the thread its P was handed to exists already).
package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"syscall"
	"time"
)

var names = []string{
	"/gc/heap/tiny/allocs:objects",
	"/gc/heap/allocs:objects",
	"/gc/heap/frees:objects",
	"/gc/heap/allocs:bytes",
	"/gc/heap/objects:objects",
	"/gc/heap/goal:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/memory/classes/os-stacks:bytes",
	"/memory/classes/metadata/mspan/inuse:bytes",
	"/memory/classes/metadata/mspan/free:bytes",
	"/memory/classes/metadata/mcache/inuse:bytes",
	"/memory/classes/metadata/mcache/free:bytes",
	"/memory/classes/profiling/buckets:bytes",
	"/memory/classes/metadata/other:bytes",
	"/memory/classes/other:bytes",
}

type node struct {
	next *node
	pad  [6]int
}

var (
	keep    []interface{}
	samples = make([]metrics.Sample, len(names))
	gcs     debug.GCStats
	out     = make([]byte, 0, 16<<10)
	prev    = make([]byte, 0, 16<<10)
	rbuf    [1]byte
	qnames  = [5]string{
		`go_gc_duration_seconds{quantile="0"}`,
		`go_gc_duration_seconds{quantile="0.25"}`,
		`go_gc_duration_seconds{quantile="0.5"}`,
		`go_gc_duration_seconds{quantile="0.75"}`,
		`go_gc_duration_seconds{quantile="1"}`,
	}
	infoLine = `go_info{version="` + runtime.Version() + "\"} 1\n"
)

func get(i int) uint64 { return samples[i].Value.Uint64() }

func put(b []byte, name string, v float64) []byte {
	b = append(b, name...)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, v, 'g', -1, 64)
	return append(b, '\n')
}

// collect: client_golang's numbers into out (nothing allocated once warm).
func collect() {
	b := out[:0]
	debug.ReadGCStats(&gcs)
	threads, _ := runtime.ThreadCreateProfile(nil)
	goroutines := runtime.NumGoroutine()
	metrics.Read(samples)

	// memStatsFromRM
	tiny := get(0)
	mallocs := get(1) + tiny
	frees := get(2) + tiny
	totalAlloc := get(3)
	sys := get(6)
	heapAlloc := get(7)
	heapInuse := heapAlloc + get(8)
	heapReleased := get(9)
	heapIdle := heapReleased + get(10)
	heapSys := heapInuse + heapIdle
	heapObjects := get(4)
	stackInuse := get(11)
	stackSys := stackInuse + get(12)
	mspanInuse := get(13)
	mspanSys := mspanInuse + get(14)
	mcacheInuse := get(15)
	mcacheSys := mcacheInuse + get(16)

	for i := range gcs.PauseQuantiles {
		b = put(b, qnames[i], gcs.PauseQuantiles[i].Seconds())
	}
	b = put(b, "go_gc_duration_seconds_sum", gcs.PauseTotal.Seconds())
	b = put(b, "go_gc_duration_seconds_count", float64(gcs.NumGC))
	b = put(b, "go_goroutines", float64(goroutines))
	b = append(b, infoLine...)
	b = put(b, "go_memstats_alloc_bytes", float64(heapAlloc))
	b = put(b, "go_memstats_alloc_bytes_total", float64(totalAlloc))
	b = put(b, "go_memstats_buck_hash_sys_bytes", float64(get(17)))
	b = put(b, "go_memstats_frees_total", float64(frees))
	b = put(b, "go_memstats_gc_sys_bytes", float64(get(18)))
	b = put(b, "go_memstats_heap_alloc_bytes", float64(heapAlloc))
	b = put(b, "go_memstats_heap_idle_bytes", float64(heapIdle))
	b = put(b, "go_memstats_heap_inuse_bytes", float64(heapInuse))
	b = put(b, "go_memstats_heap_objects", float64(heapObjects))
	b = put(b, "go_memstats_heap_released_bytes", float64(heapReleased))
	b = put(b, "go_memstats_heap_sys_bytes", float64(heapSys))
	b = put(b, "go_memstats_last_gc_time_seconds",
		float64(gcs.LastGC.UnixNano())/1e9)
	b = put(b, "go_memstats_lookups_total", 0)
	b = put(b, "go_memstats_mallocs_total", float64(mallocs))
	b = put(b, "go_memstats_mcache_inuse_bytes", float64(mcacheInuse))
	b = put(b, "go_memstats_mcache_sys_bytes", float64(mcacheSys))
	b = put(b, "go_memstats_mspan_inuse_bytes", float64(mspanInuse))
	b = put(b, "go_memstats_mspan_sys_bytes", float64(mspanSys))
	b = put(b, "go_memstats_next_gc_bytes", float64(get(5)))
	b = put(b, "go_memstats_other_sys_bytes", float64(get(19)))
	b = put(b, "go_memstats_stack_inuse_bytes", float64(stackInuse))
	b = put(b, "go_memstats_stack_sys_bytes", float64(stackSys))
	b = put(b, "go_memstats_sys_bytes", float64(sys))
	b = put(b, "go_threads", float64(threads))
	out = b
}

func main() {
	if len(os.Args) != 2 {
		os.Stderr.WriteString("usage: gometricsprog FIFO\n")
		os.Exit(2)
	}
	for i := range samples {
		samples[i].Name = names[i]
	}
	gcs.PauseQuantiles = make([]time.Duration, 5)
	gcs.Pause = make([]time.Duration, 0, 2*256+3)
	gcs.PauseEnd = make([]time.Time, 0, 256)
	// a heap: small, tiny and large objects, some kept
	var head *node
	for i := 0; i < 20000; i++ {
		n := &node{next: head}
		if i%3 == 0 {
			head = n
		}
		keep = append(keep, make([]byte, 1+i%24))
	}
	keep = append(keep, head, make([]byte, 100000))
	for i := 0; i < 4; i++ {
		runtime.GC()
	}
	debug.FreeOSMemory()
	// block in a syscall once, so that sysmon's hand-off of the P has
	// made its thread already
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		panic(err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		syscall.Write(p[1], []byte{1})
	}()
	syscall.Read(p[0], rbuf[:])
	time.Sleep(50 * time.Millisecond)
	fd, err := syscall.Open(os.Args[1], syscall.O_RDONLY, 0)
	if err != nil {
		panic(err)
	}
	collect()
	for i := 0; i < 50; i++ {
		prev = append(prev[:0], out...)
		collect()
		if string(prev) == string(out) {
			break
		}
	}
	out = append(out, "READY\n"...)
	syscall.Write(1, out)
	syscall.Read(fd, rbuf[:])
}
