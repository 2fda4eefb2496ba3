// Command inferprog is the target of go-heap's type inference test
// (tests/run-retained-infer.sh).  Its small objects carry no type in the
// heap (no malloc header: 512 B or less, go1.22+); go-heap infers them from
// the typed objects pointing at them.  It builds known graphs, each of a
// type of its own allocated nowhere else, and prints how many objects of
// each type it allocated (the oracle), then stays still (a raw pipe read)
// without allocating:
//
//   - main.cache, a global map[int]*main.Val of nVal values: its bucket
//     (group) arrays are large enough to carry their type; the hmap's
//     overflow buckets (1.22-1.23) are small and typed by inference;
//   - main.items, a global []*main.Item whose backing array (8000 B) has a
//     malloc header;
//   - main.head, a *main.Holder (a malloc header) holding:
//       list   a linked list of nNode *main.Node;
//       any1   an interface{} holding the only *main.Impl;
//       shape  a main.Shape (an interface with methods) holding a *main.Circle;
//       boxed  an interface{} holding a main.Pair by value (boxed: the
//              interface's data word points at a heap copy), whose two
//              fields point at two main.Leaf (no pointers);
//       ch     a chan *main.Msg with a buffer of 16 holding nMsg;
//       m      a map[string]*main.Rec of 5 (one small bucket or group);
//       m2     a map[int]*main.Rec2 of nRec2 (its buckets or groups
//              headered);
//       m3     a map[int]*main.Rec3 of 13: two buckets of 144 B (1.22-1.23;
//              an overflow bucket when 9 hash into one) or, swiss, a
//              directory of one table of two groups (272 B): no header,
//              typed only through the typed map header;
//       sl     a []*main.Elem with a small backing array of 4;
//       arr    a [3]*main.Elem3;
//       fn     a closure (main.build.func1) holding h and a count;
//       small, large  []main.Sample of 4 and 5000: noscan backing arrays,
//              a small one and a large one (no largeType: no pointers);
//       c1, c2 one object as a *main.Conf1 and (unsafe) a *main.Conf2 of
//              the same layout: two inferences disagree (CONFLICTS 1).
//
// Standard output, written with raw syscalls:
//
//	COUNT <type> <n>   (objects of that type it allocated without a header)
//	EXACT <type> <n>   (objects of that type with a malloc header)
//	CONFLICTS <n>      (objects pointed at through two different types)
//	READY
package main

import (
	"runtime"
	"strconv"
	"syscall"
	"unsafe"
)

const (
	nVal  = 5000
	nItem = 1000
	nNode = 20000
	nMsg  = 10
	nRec2 = 300
	nRec3 = 13
)

type Val struct { // 24 B
	p  *Val
	id int
	x  int
}
type Item struct { // 16 B
	p *Item
	v int
}
type Node struct { // 16 B
	next *Node
	v    int
}
type Impl struct { // 32 B
	p *Impl
	a [3]int
}
type Shape interface{ Area() int }
type Circle struct { // 24 B
	p *Circle
	r int
	c int
}

func (c *Circle) Area() int { return 3 * c.r * c.r }

type Leaf struct{ a, b, c int64 } // 24 B, no pointers
type Pair struct{ l, r *Leaf }    // 16 B
type Msg struct {                 // 16 B
	p  *Msg
	id int
}
type Rec struct { // 16 B
	p *Rec
	k int
}
type Rec2 struct { // 32 B
	p *Rec2
	k [3]int
}
type Rec3 struct { // 16 B
	p *Rec3
	k int
}
type Elem struct { // 16 B
	p *Elem
	v int
}
type Elem3 struct { // 48 B
	p *Elem3
	v [5]int
}
type Conf1 struct { // 16 B; Conf2 has its layout
	p *Conf1
	v int
}
type Conf2 struct {
	p *Conf2
	v int
}
type Sample int64  // no pointers
type Holder struct { // > 512 B: a malloc header
	list  *Node
	any1  interface{}
	shape Shape
	boxed interface{}
	ch    chan *Msg
	m     map[string]*Rec
	m2    map[int]*Rec2
	m3    map[int]*Rec3
	sl    []*Elem
	arr   [3]*Elem3
	fn    func() int
	c1    *Conf1
	c2    *Conf2 // the same object as c1 (unsafe): a conflict
	small []Sample // 4: a 32-byte noscan object
	large []Sample // 5000: a large noscan object (no largeType)
	pad   [80]int
}

var (
	cache  map[int]*Val
	items  []*Item
	head   *Holder
	pipefd [2]int
	out    []byte
)

func count(name string, n int) {
	out = append(out, "COUNT "...)
	out = append(out, name...)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(n), 10)
	out = append(out, '\n')
}

func build() {
	cache = make(map[int]*Val)
	for i := 0; i < nVal; i++ {
		cache[i] = &Val{id: i}
	}
	items = make([]*Item, nItem)
	for i := range items {
		items[i] = &Item{v: i}
	}
	h := &Holder{}
	for i := 0; i < nNode; i++ {
		h.list = &Node{next: h.list, v: i}
	}
	h.any1 = &Impl{a: [3]int{1, 2, 3}}
	h.shape = &Circle{r: 2}
	h.boxed = Pair{l: &Leaf{a: 1}, r: &Leaf{a: 2}}
	h.ch = make(chan *Msg, 16)
	for i := 0; i < nMsg; i++ {
		h.ch <- &Msg{id: i}
	}
	h.m = make(map[string]*Rec)
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		h.m[k] = &Rec{}
	}
	h.m2 = make(map[int]*Rec2)
	for i := 0; i < nRec2; i++ {
		h.m2[i] = &Rec2{}
	}
	h.m3 = make(map[int]*Rec3)
	for i := 0; i < nRec3; i++ {
		h.m3[i] = &Rec3{}
	}
	h.sl = make([]*Elem, 4)
	for i := range h.sl {
		h.sl[i] = &Elem{v: i}
	}
	for i := range h.arr {
		h.arr[i] = &Elem3{}
	}
	h.small = make([]Sample, 4)
	h.large = make([]Sample, 5000)
	h.c1 = &Conf1{}
	h.c2 = (*Conf2)(unsafe.Pointer(h.c1))
	n := nNode
	h.fn = func() int { return n + len(h.sl) } // a closure of h and n
	head = h
	count("main.Val", nVal)
	count("main.Item", nItem)
	count("main.Node", nNode)
	count("main.Impl", 1)
	count("main.Circle", 1)
	count("main.Pair", 1)
	count("main.Leaf", 2)
	count("main.Msg", nMsg)
	count("main.Rec", 5)
	count("main.Rec2", nRec2)
	count("main.Rec3", nRec3)
	count("main.Elem", 4)
	count("main.Elem3", 3)
	// the containers: each map's header (hmap, or the swiss maps.Map),
	// the channel's hchan and its buffer (an array of 16 *main.Msg), the
	// slice's backing array of 4 *main.Elem
	count("map[string]*main.Rec", 1)
	count("map[int]*main.Rec2", 1)
	count("map[int]*main.Rec3", 1)
	count("chan *main.Msg", 1)
	count("*main.Msg", 1)
	count("*main.Elem", 1)
	// the closure's funcval (its function's PC, then h and n), named after
	// its function
	count("closure main.build.func1", 1)
	// one object pointed at as a *Conf1 (the first field) and a *Conf2:
	// the first inference is kept, the other counted
	count("main.Conf1", 1)
	// the two backing arrays of main.Sample, noscan, small and large
	count("main.Sample", 2)
	conflicts(1)
	// typed by their malloc headers, never inferred
	exact("main.Holder", 1)
	exact("*main.Item", 1)
}

func conflicts(n int) {
	out = append(out, "CONFLICTS "...)
	out = strconv.AppendInt(out, int64(n), 10)
	out = append(out, '\n')
}

func exact(name string, n int) {
	out = append(out, "EXACT "...)
	out = append(out, name...)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(n), 10)
	out = append(out, '\n')
}

func main() {
	var rbuf [1]byte

	build()
	if err := syscall.Pipe(pipefd[:]); err != nil {
		panic(err)
	}
	runtime.GC()
	runtime.GC()
	out = append(out, "READY\n"...)
	syscall.Write(1, out)
	for {
		syscall.Read(pipefd[0], rbuf[:])
	}
}
