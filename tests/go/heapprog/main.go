// Command heapprog is the target program of go-heap's integration tests
// (tests/run-live.sh).  It records every allocation (MemProfileRate = 1),
// allocates through many distinct kinds of stacks, stops the garbage
// collector, writes its own runtime/pprof profiles into a directory and then
// waits, allocation-free, so that go-heap can read the same profile from
// outside and the two results can be compared.
//
// Usage: heapprog [-contention] [-out] DIR
//
// Files written into DIR:
//
//	heap.txt      pprof.Lookup("heap").WriteTo(f, 1)    (debug=1 text)
//	heap.pb.gz    pprof.Lookup("heap").WriteTo(f, 0)    (gzip'd profile.proto)
//	allocs.txt    pprof.Lookup("allocs").WriteTo(f, 1)
//	allocs.pb.gz  pprof.Lookup("allocs").WriteTo(f, 0)
//	block.txt, block.pb.gz, mutex.txt, mutex.pb.gz      (only with -contention)
//	passes        how many write passes were needed (see below)
//
// On stdout it prints "heapprog: pid N goVERSION" at start and "READY N"
// once the files are final.  Exit status 1 if the profile did not settle.
//
// # What is stable after the in-process write, and what is not
//
// runtime.MemProfile (memProfileInternal in 1.23+), which every heap writer
// uses, reports bucket b as
//
//	b.active + b.future[C%3]       (C = mProfCycle; that slot is moved into
//	                                active on each call: the "flush")
//
// or, when every bucket's active counts are zero (no GC has completed yet),
// the sum of all three future slots (the "clear" fold, also permanent).
// A malloc adds to future[(C+2)%3] and a sweep free to future[(C+1)%3]; only
// a GC cycle (mProf_NextCycle / mProf_Flush / mProf_PostSweep) ever moves
// those into active.  So, with the GC stopped, the *counts* of every bucket
// are frozen from the first MemProfile call on, whatever the program
// allocates afterwards.  (Go 1.19 to 1.24 source, src/runtime/mprof.go.)
//
// What is *not* frozen is the set of buckets.  With MemProfileRate = 1 every
// allocation is sampled, and one from a new (stack, size) pair creates a new
// bucket at the head of runtime.mbuckets.  runtime/pprof reports every
// bucket (inuseZero = true), so it appears as a "0: 0 [0: 0]" record in any
// later read.  The writers allocate a lot, with sizes that depend on the
// number of records (the record slice, n+50 long; buffers; the proto
// builder's tables), so each write creates new buckets that the next write
// sees, which changes the sizes again: measured, the record count grows by
// about 10 per write for 30+ writes and does not settle.  It cannot be
// avoided from inside: the writers print the *current* MemProfileRate and
// rate 1 samples every allocation, so sampling cannot be paused.
//
// Hence the contract between this program and the comparators
// (tests/compare.sh):
//
//  1. The GC is stopped (debug.SetGCPercent(-1)) before anything is
//     allocated, and the program calls runtime.GC() itself exactly where it
//     wants a cycle.  GC percent < 0 also disables the 2-minute forced GC
//     (gcTrigger.test, gcTriggerTime), and no memory limit is set.
//  2. All allocation the test wants is done, then runtime.GC() (so the
//     profile is not in "clear" mode and has freed objects), then a few more
//     allocations whose buckets therefore are all zero.
//  3. Everything that the waiting phase could allocate on first use is done
//     before the writing starts: the main goroutine's sleep timer
//     (time.Sleep allocates g.timer once), the first write to stdout, the
//     output files are opened, the READY line is formatted.
//  4. All writing happens in writeProfiles (or below it).  It writes every
//     profile twice (a warm-up pass and the final pass, both to the files)
//     and then checks that the two heap texts are equal once the records
//     that are all zero and whose stack contains main.writeProfiles are
//     removed, i.e. that nothing but the writer's own new buckets changed.
//     Exit 1 otherwise.
//  5. After that the program only writes the preformatted READY line (no
//     allocation) and sleeps (the timer exists already).  The goroutines
//     that are still alive are blocked on channels forever.
//
// So an external read after READY gives exactly the in-process records plus
// some all-zero records from main.writeProfiles.  The comparators drop those
// (from both sides) and compare the rest strictly.  The header totals are
// unaffected (zero records add nothing).  Also ignored: the MemStats trailer
// of the text, time_nanos in the proto.  With -contention, the block and
// mutex profiles are stable too (every contending goroutine has finished or
// is blocked for good), except that the runtime may record contention on
// its own internal locks (1.22+) at any time; that is rare.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Record every allocation.  A package-level initializer runs before init()
// and main(), but after the runtime's own initialisation, so only the
// runtime's start-up allocations are sampled at the default rate.
var _ = func() int { runtime.MemProfileRate = 1; return 0 }()

// sink keeps objects alive (in-use) so the GC does not free them.
var sink []interface{}

func keep(x interface{}) { sink = append(sink, x) }

// ---------------------------------------------------------------------------
// Inlined helpers: small leaf functions the compiler inlines into their
// callers, so the bucket stacks have inlined (virtual) frames.

func newBuf(n int) []byte { return make([]byte, n) }

func newPair(a, b int) *[2]int { return &[2]int{a, b} }

func wrapBuf(n int) []byte { return newBuf(n + 1) } // two levels of inlining

//go:noinline
func inlinedCallers() {
	keep(newBuf(100))
	keep(newBuf(5000))
	keep(newPair(1, 2))
	keep(wrapBuf(300))
	for i := 0; i < 3; i++ {
		keep(wrapBuf(64)) // same stack and size: one bucket, 3 objects
	}
}

// ---------------------------------------------------------------------------
// Methods with value and pointer receivers, method values, interfaces.

type Store struct {
	name  string
	items [][]byte
}

//go:noinline
func (s Store) ValueAlloc(n int) []byte { return make([]byte, n+len(s.name)) }

//go:noinline
func (s *Store) PtrAlloc(n int) {
	s.items = append(s.items, make([]byte, n))
}

type Allocator interface{ Alloc(int) interface{} }

type sliceAlloc struct{}
type mapAlloc struct{ m map[int]string }

//go:noinline
func (sliceAlloc) Alloc(n int) interface{} { return make([]int64, n) }

//go:noinline
func (a *mapAlloc) Alloc(n int) interface{} {
	for i := 0; i < n; i++ {
		a.m[i] = strconv.Itoa(i * 7919) // map growth: leading runtime.* frames
	}
	return a.m
}

//go:noinline
func methods() {
	s := &Store{name: "store"}
	keep(s.ValueAlloc(200))
	s.PtrAlloc(400)
	f := s.PtrAlloc // method value: main.(*Store).PtrAlloc-fm wrapper
	f(800)
	keep(f)
	g := Store.ValueAlloc // method expression
	keep(g(*s, 1200))
	keep(s)
	for _, a := range []Allocator{sliceAlloc{}, &mapAlloc{m: map[int]string{}}} {
		keep(a.Alloc(300))
	}
}

// ---------------------------------------------------------------------------
// Closures, nested closures, closures called from goroutines.

//go:noinline
func closures() {
	x := 10
	mk := func(n int) []byte { return make([]byte, n*x) }
	keep(mk(3))
	outer := func() func() []string {
		return func() []string {
			return strings.Split("a,b,c,d,e,f,g", ",")
		}
	}
	keep(outer()())
	keep(func() *bytes.Buffer {
		var b bytes.Buffer
		fmt.Fprintf(&b, "closure %d %s", x, "fmt")
		return &b
	}())
}

// ---------------------------------------------------------------------------
// Generics: several instantiations of functions, types and methods.

type Number interface {
	~int | ~int32 | ~float64
}

//go:noinline
func MakeN[T any](n int) []T { return make([]T, n) }

func SumInto[T Number](xs []T) *T { // inlinable generic
	var s T
	for _, x := range xs {
		s += x
	}
	return &s
}

type Box[T any] struct{ vals []T }

//go:noinline
func (b *Box[T]) Fill(n int, v T) {
	for i := 0; i < n; i++ {
		b.vals = append(b.vals, v)
	}
}

type Point struct{ X, Y, Z float64 }

//go:noinline
func generics() {
	keep(MakeN[int](100))
	keep(MakeN[string](50))
	keep(MakeN[Point](30))
	keep(MakeN[*Point](20))
	keep(SumInto([]int{1, 2, 3}))
	keep(SumInto([]float64{1, 2, 3}))
	bi := &Box[int32]{}
	bi.Fill(100, 7)
	bs := &Box[string]{}
	bs.Fill(10, "x")
	bp := &Box[Point]{}
	bp.Fill(40, Point{1, 2, 3})
	keep(bi)
	keep(bs)
	keep(bp)
}

// ---------------------------------------------------------------------------
// Goroutines: some finish, some stay alive blocked on a channel forever.

var blockForever = make(chan struct{})

//go:noinline
func worker(id int, wg *sync.WaitGroup, stay bool) {
	buf := make([]byte, 1000+id*64)
	m := map[string]int{}
	for i := 0; i < 20; i++ {
		m[fmt.Sprintf("w%d-%d", id, i)] = i
	}
	wg.Done()
	if stay {
		<-blockForever // never closed
		keep(buf)      // unreachable in practice; keeps buf alive
		keep(m)
	}
}

//go:noinline
func goroutines() {
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go worker(i, &wg, i%2 == 0)
	}
	wg.Wait()
	ch := make(chan []byte)
	go func() { ch <- make([]byte, 777) }() // closure in a goroutine
	keep(<-ch)
}

// ---------------------------------------------------------------------------
// Deep stacks.  recA is plainly recursive; recB/stepB are mutually recursive
// and stepB is inlined into recB, so every level has an inlined frame and the
// stack cut (32 frames in Go <=1.22, 128 in 1.23+) falls on an inlined call
// for one of the two depths of each pair (runtime_expandFinalInlineFrame).

//go:noinline
func recA(n int) []byte {
	if n == 0 {
		return make([]byte, 48)
	}
	return recA(n - 1)
}

func stepB(n int) []byte { return recB(n) }

//go:noinline
func recB(n int) []byte {
	if n == 0 {
		return make([]byte, 96)
	}
	return stepB(n - 1)
}

//go:noinline
func deep() {
	for _, d := range []int{10, 40, 41, 140, 141, 300} {
		keep(recA(d))
		keep(recB(d))
	}
}

// ---------------------------------------------------------------------------
// Object sizes: tiny (8 B, the tiny allocator), many size classes from one
// call site (same stack, different buckets), large objects (1 MiB+).

//go:noinline
func sizes() {
	for i := 0; i < 50; i++ {
		p := new(int64) // tiny, noscan
		*p = int64(i)
		keep(p)
	}
	for _, n := range []int{8, 16, 24, 32, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768} {
		keep(make([]byte, n)) // one stack, one bucket per size class
	}
	keep(make([]byte, 1<<20))     // 1 MiB
	keep(make([]byte, 3<<20+123)) // large, not page-aligned size
	keep(make([]uint64, 1<<18))   // 2 MiB, pointer-free
	keep(make([]*int, 1<<17))     // 1 MiB, with pointers
}

// ---------------------------------------------------------------------------
// Objects that are freed by the GC, fully or partly: in-use < allocated.

var partial [][]byte

//go:noinline
func garbage() {
	for i := 0; i < 100; i++ {
		b := make([]byte, 4096)
		if i%4 == 0 {
			partial = append(partial, b) // 25 of 100 stay in use
		}
	}
	for i := 0; i < 200; i++ {
		_ = fmt.Sprintf("temporary string %d", i) // all freed
	}
	var s []string
	for i := 0; i < 1000; i++ {
		s = append(s, "x") // growslice: freed intermediate arrays
	}
	keep(s)
	keep(strings.Repeat("ab", 5000)) // runtime.* frames in the middle? no: in strings.
}

// panicky allocates while a panic is in progress: runtime.gopanic sits in the
// middle of the stack (not leading, so it is shown).
//
//go:noinline
func panicky() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
			keep(err)
		}
	}()
	panic(errors.New("heapprog test panic"))
}

// stdlib allocates through deeper standard-library stacks.
//
//go:noinline
func stdlib() {
	words := make([]string, 0, 64)
	for i := 0; i < 64; i++ {
		words = append(words, strconv.FormatInt(int64(i*i*31), 36))
	}
	sort.Strings(words)
	keep(strings.Join(words, " "))
	var sb strings.Builder
	for i := 0; i < 100; i++ {
		sb.WriteString(words[i%len(words)])
	}
	keep(sb.String())
	keep(fmt.Sprint(Point{1, 2, 3}, words[:3]))
}

// afterGC allocates after the last GC: these buckets have all-zero active
// counts and show up as "0: 0 [0: 0] @ ..." records.
//
//go:noinline
func afterGC() {
	keep(make([]byte, 12345))
	keep(&Point{4, 5, 6})
	keep(MakeN[uint16](99))
}

// ---------------------------------------------------------------------------
// Contention for the block and mutex profiles.

//go:noinline
func contention() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	counter := 0
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 200; j++ {
				mu.Lock()
				counter++
				time.Sleep(20 * time.Microsecond)
				mu.Unlock()
			}
		}()
	}
	ch := make(chan int)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			time.Sleep(200 * time.Microsecond)
			ch <- i
		}
		close(ch)
	}()
	for range ch { // chan receive blocks
	}
	wg.Wait() // sync.WaitGroup blocks
	cond := sync.NewCond(&mu)
	ready := false
	go func() {
		time.Sleep(time.Millisecond)
		mu.Lock()
		ready = true
		mu.Unlock()
		cond.Broadcast()
	}()
	mu.Lock()
	for !ready {
		cond.Wait()
	}
	mu.Unlock()
	keep(counter)
}

// ---------------------------------------------------------------------------

type output struct {
	profile string
	debug   int
	file    string
	f       *os.File
	buf     bytes.Buffer
}

func die(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "heapprog: "+format+"\n", args...)
	os.Exit(1)
}

// stripTrailer drops the MemStats trailer of a heap debug=1 text.
func stripTrailer(b []byte) []byte {
	if i := bytes.Index(b, []byte("\n# runtime.MemStats\n")); i >= 0 {
		return b[:i+1]
	}
	return b
}

// writerMarker identifies the frames of the writer itself in debug=1 text.
const writerMarker = "\tmain.writeProfiles+"

// settledRecords splits a heap debug=1 text into its header line and its
// records (the "N: N [N: N] @ ..." line plus frame lines), drops all-zero
// records from the writer itself, and returns the rest sorted.
func settledRecords(text []byte) (header string, recs []string) {
	lines := strings.Split(string(stripTrailer(text)), "\n")
	header = lines[0]
	var cur []string
	flush := func() {
		if len(cur) == 0 {
			return
		}
		r := strings.Join(cur, "\n")
		if !(strings.HasPrefix(r, "0: 0 [0: 0] @") && strings.Contains(r, writerMarker)) {
			recs = append(recs, r)
		}
		cur = nil
	}
	for _, l := range lines[1:] {
		if l == "" {
			flush()
			continue
		}
		cur = append(cur, l)
	}
	flush()
	sort.Strings(recs)
	return header, recs
}

// writeProfiles writes every profile twice to its file and checks that the
// heap profile settled (see the package comment).  It must be the only
// place that allocates after the last runtime.GC(): the comparators
// recognise the writer's own buckets by this function's name.
//
//go:noinline
func writeProfiles(outs []*output) error {
	var texts [2][]byte
	for pass := 0; pass < 2; pass++ {
		for _, o := range outs {
			o.buf.Reset()
			if err := pprof.Lookup(o.profile).WriteTo(&o.buf, o.debug); err != nil {
				return fmt.Errorf("write %s: %v", o.file, err)
			}
			if _, err := o.f.Seek(0, 0); err != nil {
				return err
			}
			if err := o.f.Truncate(0); err != nil {
				return err
			}
			if _, err := o.f.Write(o.buf.Bytes()); err != nil {
				return err
			}
		}
		texts[pass] = append([]byte(nil), outs[0].buf.Bytes()...)
	}
	h0, r0 := settledRecords(texts[0])
	h1, r1 := settledRecords(texts[1])
	if h0 != h1 {
		return fmt.Errorf("heap profile header changed between writes: %q -> %q", h0, h1)
	}
	if len(r0) != len(r1) {
		return fmt.Errorf("heap profile changed between writes: %d -> %d records", len(r0), len(r1))
	}
	for i := range r0 {
		if r0[i] != r1[i] {
			return fmt.Errorf("heap profile changed between writes:\n%s\n-- became --\n%s", r0[i], r1[i])
		}
	}
	return nil
}

// recheckProfiles writes the heap and allocs profiles once more, into
// *.later.* files, for testing the test bed itself (-recheck): the
// comparators must find them equal to the first write once the all-zero
// records from main.writeProfiles and main.recheckProfiles are dropped.
//
//go:noinline
func recheckProfiles(dir string) {
	later := []*output{
		{profile: "heap", debug: 1, file: "heap.later.txt"},
		{profile: "heap", debug: 0, file: "heap.later.pb.gz"},
		{profile: "allocs", debug: 0, file: "allocs.later.pb.gz"},
	}
	for _, o := range later {
		f, err := os.Create(filepath.Join(dir, o.file))
		if err != nil {
			die("%v", err)
		}
		o.f = f
	}
	if err := writeProfiles(later); err != nil {
		die("%v", err)
	}
	os.Stdout.Write([]byte("RECHECKED\n"))
}

func main() {
	contend := flag.Bool("contention", false, "enable block and mutex profiling, create contention and write block/mutex profiles")
	recheck := flag.Duration("recheck", 0, "testing the test bed: after READY, wait this long, then write heap.later.txt, heap.later.pb.gz, allocs.later.pb.gz (this write allocates; profile with go-heap before it)")
	outFlag := flag.String("out", "", "directory for the in-process profiles (or give it as the argument)")
	flag.Parse()
	dir := *outFlag
	if dir == "" && flag.NArg() == 1 {
		dir = flag.Arg(0)
	}
	if dir == "" || flag.NArg() > 1 || (*outFlag != "" && flag.NArg() > 0) {
		fmt.Fprintln(os.Stderr, "usage: heapprog [-contention] [-out] DIR")
		os.Exit(2)
	}
	// (1) No GC from now on unless we ask for one.
	debug.SetGCPercent(-1)
	fmt.Printf("heapprog: pid %d %s\n", os.Getpid(), runtime.Version())

	if *contend {
		runtime.SetBlockProfileRate(1)
		runtime.SetMutexProfileFraction(1)
		contention()
	}

	// (2) Allocations.
	inlinedCallers()
	methods()
	closures()
	generics()
	goroutines()
	deep()
	sizes()
	garbage()
	panicky()
	stdlib()
	partial = partial[:10] // drop more, after they were allocated

	// (3) Everything the waiting phase needs, before the writing starts.
	time.Sleep(time.Millisecond) // allocates the main goroutine's timer
	ready := []byte(fmt.Sprintf("READY %d\n", os.Getpid()))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		die("%v", err)
	}
	outs := []*output{
		{profile: "heap", debug: 1, file: "heap.txt"},
		{profile: "heap", debug: 0, file: "heap.pb.gz"},
		{profile: "allocs", debug: 1, file: "allocs.txt"},
		{profile: "allocs", debug: 0, file: "allocs.pb.gz"},
	}
	if *contend {
		outs = append(outs,
			&output{profile: "block", debug: 1, file: "block.txt"},
			&output{profile: "block", debug: 0, file: "block.pb.gz"},
			&output{profile: "mutex", debug: 1, file: "mutex.txt"},
			&output{profile: "mutex", debug: 0, file: "mutex.pb.gz"})
	}
	for _, o := range outs {
		f, err := os.Create(filepath.Join(dir, o.file))
		if err != nil {
			die("%v", err)
		}
		o.f = f
	}

	// The last GC, then allocations that only the next GC would account.
	runtime.GC()
	afterGC()

	// (4) Write.
	if err := writeProfiles(outs); err != nil {
		die("%v", err)
	}

	// (5) No allocation from here on.
	os.Stdout.Write(ready)
	if *recheck > 0 {
		time.Sleep(*recheck)
		recheckProfiles(dir)
	}
	for {
		time.Sleep(time.Hour)
	}
}
