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
