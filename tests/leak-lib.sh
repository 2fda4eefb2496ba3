# tests/leak-lib.sh: helpers shared by run-goroutineleak.sh and run-goroutineleak-arm64.sh
# (sourced after lib.sh).
# leaked FILE: the goroutine ids a debug=2 text marks "(leaked)", sorted
leaked() { sed -n 's/^goroutine \([0-9]*\) \[.*(leaked).*/\1/p' "$1" | sort -n | tr '\n' ' '; }
# ids FILE TAG [KIND...]: the ids the program printed as TAG (LEAK/WAIT), only KINDs if given
ids() {
	local f=$1 tag=$2
	shift 2
	awk -v t="$tag" -v ks="$*" 'BEGIN { n = split(ks, a, " "); for (i = 1; i <= n; i++) k[a[i]] = 1 }
		$1 == t && (n == 0 || ($3 in k)) { print $2 }' "$f" | sort -n | tr '\n' ' '
}
# subset A B: every word of A is in B
subset() {
	local x
	for x in $1; do
		case " $2 " in *" $x "*) ;; *) return 1 ;; esac
	done
	return 0
}
