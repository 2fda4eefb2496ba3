//go:build goexperiment.synctest && !go1.25

package synctestprog

import (
	"testing"
	"testing/synctest"
)

// inBubble runs f in a new bubble (go1.24, GOEXPERIMENT=synctest: a
// "synctest group" named by the goroutine that called Run).
func inBubble(t *testing.T, f func()) {
	synctest.Run(f)
}
