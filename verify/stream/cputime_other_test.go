//go:build !unix

package stream

import "time"

// processCPU is unknown here: the benchmark reports wall-time ratios only.
func processCPU() time.Duration { return 0 }
