//go:build !amd64

package catalog

// dot is the inner product of two vectors of equal length.
func dot(a, b []float32) float32 { return dotGo(a, b) }

// dotInt8 is the inner product of q and the codes c widened to floats.
func dotInt8(q []float32, c []int8) float32 { return dotInt8Go(q, c) }

// axpyInt8 adds a × c[i], c[i] widened to a float, to each acc[i].
func axpyInt8(acc []float32, a float32, c []int8) { axpyInt8Go(acc, a, c) }
