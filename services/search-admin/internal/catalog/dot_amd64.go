package catalog

import "golang.org/x/sys/cpu"

// hasFMA tells whether this CPU runs the assembly dots: AVX2 and FMA
// (x86-64 servers since 2013).
var hasFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dot is the inner product of two vectors of equal length: eight lanes of
// fused multiply-adds at a time where the CPU has them, else dotGo.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	if hasFMA {
		return dotFMA(a, b)
	}
	return dotGo(a, b)
}

// dotInt8 is the inner product of q and the codes c (one per dimension)
// widened to floats, eight lanes at a time where the CPU can.
func dotInt8(q []float32, c []int8) float32 {
	c = c[:len(q)]
	if hasFMA {
		return dotInt8FMA(q, c)
	}
	return dotInt8Go(q, c)
}

// axpyInt8 adds a × c[i], c[i] widened to a float, to each acc[i]; len(c)
// must be at least len(acc).
func axpyInt8(acc []float32, a float32, c []int8) {
	c = c[:len(acc)]
	if hasFMA {
		axpyInt8FMA(acc, a, c)
		return
	}
	axpyInt8Go(acc, a, c)
}

// dotFMA is dot in AVX2 and FMA instructions (dot_amd64.s); len(b) must be
// at least len(a).
//
//go:noescape
func dotFMA(a, b []float32) float32

// dotInt8FMA is dotInt8 in AVX2 and FMA instructions (dot_amd64.s); len(c)
// must be at least len(q).
//
//go:noescape
func dotInt8FMA(q []float32, c []int8) float32

// axpyInt8FMA is axpyInt8 in AVX2 and FMA instructions (dot_amd64.s);
// len(c) must be at least len(acc).
//
//go:noescape
func axpyInt8FMA(acc []float32, a float32, c []int8)
