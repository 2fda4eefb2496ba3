//go:build go1.25

package synctestprog

import (
	"testing"
	"testing/synctest"
)

// inBubble runs f in a new bubble (its goroutines: ", synctest bubble N").
func inBubble(t *testing.T, f func()) {
	synctest.Test(t, func(*testing.T) { f() })
}
