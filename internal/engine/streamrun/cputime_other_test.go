//go:build !unix

package streamrun

import "time"

// processCPU is unknown here: the benchmark reports wall-time ratios only.
func processCPU() time.Duration { return 0 }
