// Command mkhostile regenerates the hostile-input corpus (testdata/hostile).
//
//	go run ./internal/hostile/cmd/mkhostile [-o testdata/hostile]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/debredist/debredist/internal/hostile"
)

func main() {
	out := flag.String("o", "testdata/hostile", "output directory")
	flag.Parse()
	if err := hostile.Generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "mkhostile:", err)
		os.Exit(1)
	}
}
