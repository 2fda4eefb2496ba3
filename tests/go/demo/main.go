// Command demo is the small Go service used by the README quick start: a
// product catalogue with an in-memory cache that answers simulated requests
// by encoding JSON.  It keeps a ~20 MB heap and allocates about 10 MB per
// second (hundreds of MB within a minute) at the default MemProfileRate
// (512 KiB), so go-heap finds a realistic sampled heap profile in it.
//
// Memory profiling is on because the program links runtime/pprof (any
// service that imports net/http/pprof does too): on SIGUSR1 it writes its own
// heap profile to demo-heap.pb.gz in the current directory, which you can
// compare with go-heap's.
//
//	demo [-rate N] [-quiet]      prints "READY <pid>" and runs until killed
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"
)

type Product struct {
	ID          int               `json:"id"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Tags        []string          `json:"tags"`
	Price       float64           `json:"price"`
	Attributes  map[string]string `json:"attributes"`
}

// Cache is a bounded map of product pages, evicted in insertion order.
type Cache struct {
	mu    sync.Mutex
	max   int
	order []int
	pages map[int][]byte
}

func NewCache(max int) *Cache { return &Cache{max: max, pages: make(map[int][]byte)} }

func (c *Cache) Get(id int) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.pages[id]
	return b, ok
}

func (c *Cache) Put(id int, page []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pages[id]; !ok {
		c.order = append(c.order, id)
	}
	c.pages[id] = page
	for len(c.order) > c.max {
		delete(c.pages, c.order[0])
		c.order = c.order[1:]
	}
}

var words = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa")

func loadProduct(id int, rng *rand.Rand) *Product {
	p := &Product{ID: id, Name: fmt.Sprintf("product-%06d", id), Price: float64(rng.Intn(100000)) / 100,
		Attributes: make(map[string]string)}
	var d strings.Builder
	for i := 0; i < 20+rng.Intn(200); i++ {
		d.WriteString(words[rng.Intn(len(words))])
		d.WriteByte(' ')
	}
	p.Description = d.String()
	for i := 0; i < 1+rng.Intn(6); i++ {
		p.Tags = append(p.Tags, words[rng.Intn(len(words))])
	}
	for i := 0; i < rng.Intn(8); i++ {
		p.Attributes[fmt.Sprintf("attr%d", i)] = words[rng.Intn(len(words))]
	}
	return p
}

func renderPage(p *Product) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// handleRequest serves one simulated request: cache hit, or load + render + cache.
func handleRequest(c *Cache, id int, rng *rand.Rand) int {
	if page, ok := c.Get(id); ok {
		return len(page)
	}
	page, err := renderPage(loadProduct(id, rng))
	if err != nil {
		panic(err)
	}
	c.Put(id, page)
	return len(page)
}

func worker(c *Cache, seed int64, served *int64, mu *sync.Mutex) {
	rng := rand.New(rand.NewSource(seed))
	for {
		n := 0
		for i := 0; i < 200; i++ {
			n += handleRequest(c, rng.Intn(50000), rng)
		}
		mu.Lock()
		*served += 200
		mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
}

func writeOwnProfile() {
	f, err := os.Create("demo-heap.pb.gz")
	if err == nil {
		err = pprof.WriteHeapProfile(f)
		f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		return
	}
	fmt.Println("demo: wrote demo-heap.pb.gz")
}

func main() {
	rate := flag.Int("rate", 0, "set runtime.MemProfileRate (0: keep Go's default, 512 KiB)")
	quiet := flag.Bool("quiet", false, "no periodic status lines")
	flag.Parse()
	if *rate > 0 {
		runtime.MemProfileRate = *rate
	}
	cache := NewCache(20000)
	var served int64
	var mu sync.Mutex
	for i := 0; i < 4; i++ {
		go worker(cache, int64(i+1), &served, &mu)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	fmt.Printf("READY %d\n", os.Getpid())
	tick := time.NewTicker(5 * time.Second)
	for {
		select {
		case <-sig:
			writeOwnProfile()
		case <-tick.C:
			if !*quiet {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				mu.Lock()
				fmt.Printf("demo: %d requests, heap %d MB, %d MB allocated in total\n",
					served, ms.HeapAlloc>>20, ms.TotalAlloc>>20)
				mu.Unlock()
			}
		}
	}
}
