// labelref: the reference for go-heap watch's label values (tests/run-watch-churn.sh).
//
// Reads lines of hex from stdin, each the bytes of one label value, and
// prints for each the value as a Prometheus client in Go would expose it:
// strings.ToValidUTF8(s, "\uFFFD"), then the text format's escaping of
// backslash, double quote and newline (prometheus/common/expfmt).
package main

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
)

func main() {
	esc := strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		b, err := hex.DecodeString(in.Text())
		if err != nil {
			fmt.Fprintln(os.Stderr, "labelref:", err)
			os.Exit(2)
		}
		fmt.Fprintln(out, esc.Replace(strings.ToValidUTF8(string(b), "\uFFFD")))
	}
}
