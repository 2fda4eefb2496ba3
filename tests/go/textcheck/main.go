// Command textcheck prints the expected values pasted into tests/test_fmt_text.c:
// text/tabwriter output for a list of inputs and writer settings, and the
// permutations that sort.Slice (pdqsort_func) and slices.SortFunc
// (pdqsortCmpFunc) produce on arrays with many equal keys.
//
// Run with any Go >= 1.21 (both sorts are the same in 1.19-1.24, see
// src/util/gosort.c): `go run . > /tmp/exp.txt`, then paste the sections.
package main

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// cquote renders b as a C string literal, splitting long lines.
func cquote(b []byte) string {
	var s strings.Builder
	s.WriteString("\"")
	col := 0
	for i, c := range b {
		switch {
		case c == '\n':
			s.WriteString("\\n")
			if i+1 < len(b) {
				s.WriteString("\"\n\t\t\"")
				col = 0
				continue
			}
		case c == '\t':
			s.WriteString("\\t")
		case c == '"' || c == '\\':
			s.WriteByte('\\')
			s.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			// Octal escapes cannot swallow a following hex digit.
			fmt.Fprintf(&s, "\\%03o", c)
		default:
			s.WriteByte(c)
		}
		col++
	}
	s.WriteString("\"")
	return s.String()
}

type twconf struct {
	minwidth, tabwidth, padding int
	padchar                     byte
	flags                       uint
}

var confs = []twconf{
	{1, 8, 1, '\t', 0}, // runtime/pprof
	{0, 8, 1, '.', 0},
	{5, 0, 2, ' ', tabwriter.AlignRight | tabwriter.Debug},
	{0, 4, 0, '-', tabwriter.DiscardEmptyColumns},
	{1, 8, 1, '\t', tabwriter.TabIndent | tabwriter.DiscardEmptyColumns},
	{0, 8, 1, '*', tabwriter.FilterHTML | tabwriter.StripEscape},
	{0, 8, 1, '*', tabwriter.FilterHTML},
}

// Inputs are written in pieces split at '|' (removed), to check that
// partial writes behave like one write.
var inputs = []string{
	"heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1 0x2\n" +
		"#\t0x4a1b2c\tmain.allocate+0x2c\t/home/u/src/main.go:42\n" +
		"#\t0x4a1c00\tmain.main+0x120\t/home/u/src/main.go:17\n" +
		"#\t0x43d5e0\truntime.main+0x200\t/usr/lib/go/src/runtime/proc.go:250\n\n" +
		"0: 0 [1: 8192] @ 0x9\n#\t0x9\n#\t0x4a1b2c\tmain.F[...]+0x2c\t/a.go:1\n\n",
	"a\tb\tc\nxx|xxxxxxx\tyy\tz\n\tq|q\t\n\n|\t\t\tend\n",
	"αβγ\tx\n日本語\ty\nabc\tz\n\xff\xfe\tbad\n\xe2\x82\tshort\n\n",
	"no tabs at all\nline two\n",
	"trailing\tcell without newline",
	"a\vb\vc\nd\fe\tf\ng\th\n",
	"x\xffesc\taped\xff\ty\n<b>bold</b>\t&amp;\tz\nlong long long\tq\tw\n",
	"\t\tindented\n\t\tmore\tcol\n\n",
	"c1\tc2\tc3\tc4\na\tb\nlong cell here\tx\ty\tz\n",
}

func tabwriterCases() {
	fmt.Println("/* ---- tabwriter inputs ---- */")
	for _, in := range inputs {
		fmt.Printf("\t%s,\n", cquote([]byte(in)))
	}
	fmt.Println("/* ---- tabwriter: conf, input, minwidth, tabwidth, padding, padchar, flags, output ---- */")
	for ci, c := range confs {
		for ii, in := range inputs {
			var out bytes.Buffer
			w := tabwriter.NewWriter(&out, c.minwidth, c.tabwidth, c.padding, c.padchar, c.flags)
			for _, piece := range strings.Split(in, "|") {
				w.Write([]byte(piece))
			}
			w.Flush()
			fmt.Printf("\t{ %d, %d, %d, %d, %d, 0x%x, %d,\n\t\t%s },\n",
				ci, ii, c.minwidth, c.tabwidth, c.padding, c.padchar, c.flags, cquote(out.Bytes()))
		}
	}
}

// The key generator, mirrored in tests/test_fmt_text.c (sort_keys).
func keys(pattern, n int) []int64 {
	k := make([]int64, n)
	x := uint64(pattern*1000003 + n)
	for i := range k {
		x = x*6364136223846793005 + 1442695040888963407
		switch pattern {
		case 0:
			k[i] = int64((x >> 33) % 3)
		case 1:
			k[i] = int64((x >> 33) % 10)
		case 2:
			k[i] = int64((n - i) / 3)
		case 3:
			k[i] = int64(i / 4)
			if i%23 == 7 {
				k[i] = int64((x >> 33) % 8)
			}
		case 4:
			k[i] = 5
		case 5:
			m := i
			if n-i < m {
				m = n - i
			}
			k[i] = int64(m / 2)
		case 6:
			k[i] = int64(i % 17)
		case 7:
			// Mostly zero, a few large: like heap records after a GC.
			if (x>>40)%5 == 0 {
				k[i] = int64((x >> 33) % 4096 * 8)
			}
		}
	}
	return k
}

type rec struct {
	key int64
	idx int
}

func fnv(r []rec) uint64 {
	h := uint64(14695981039346656037)
	for _, e := range r {
		h ^= uint64(e.idx)
		h *= 1099511628211
	}
	return h
}

var lengths = []int{5, 12, 13, 20, 49, 50, 51, 64, 100, 257, 1000, 4096, 100000}

const npatterns = 8

func sortCases() {
	fmt.Println("/* ---- sorts: variant, pattern, n, fnv, perm (n <= 64) ---- */")
	for variant := 0; variant < 3; variant++ {
		for p := 0; p < npatterns; p++ {
			for _, n := range lengths {
				k := keys(p, n)
				r := make([]rec, n)
				for i := range r {
					r[i] = rec{k[i], i}
				}
				switch variant {
				case 0: // heap <= 1.22, block/mutex <= 1.22
					sort.Slice(r, func(i, j int) bool { return r[i].key > r[j].key })
				case 1: // heap 1.23+
					slices.SortFunc(r, func(a, b rec) int { return cmp.Compare(a.key, b.key) })
				case 2: // block/mutex 1.23+
					slices.SortFunc(r, func(a, b rec) int { return cmp.Compare(b.key, a.key) })
				}
				perm := "NULL"
				if n <= 64 {
					var s strings.Builder
					s.WriteString("(const int[]){")
					for i, e := range r {
						if i > 0 {
							s.WriteString(",")
						}
						fmt.Fprintf(&s, "%d", e.idx)
					}
					s.WriteString("}")
					perm = s.String()
				}
				fmt.Printf("\t{ %d, %d, %d, 0x%016xULL, %s },\n", variant, p, n, fnv(r), perm)
			}
		}
	}
}

func main() {
	tabwriterCases()
	sortCases()
}
