package catalog

import "math"

// dotGo is the inner product of two vectors of equal length, unrolled by
// four: the portable dot, and the reference the assembly one is tested by.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// dotInt8Go is the inner product of q and the codes c widened to floats:
// the portable dotInt8.
func dotInt8Go(q []float32, c []int8) float32 {
	c = c[:len(q)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += q[i] * float32(c[i])
		s1 += q[i+1] * float32(c[i+1])
		s2 += q[i+2] * float32(c[i+2])
		s3 += q[i+3] * float32(c[i+3])
	}
	for ; i < len(q); i++ {
		s0 += q[i] * float32(c[i])
	}
	return s0 + s1 + s2 + s3
}

// axpyInt8Go adds a × c[i], c[i] widened to a float, to each acc[i]: the
// portable axpyInt8.
func axpyInt8Go(acc []float32, a float32, c []int8) {
	c = c[:len(acc)]
	for i, x := range c {
		acc[i] += a * float32(x)
	}
}

// quantize writes v as one byte per dimension into codes, v[i] ≈ scale ×
// codes[i], and returns scale and the Euclidean norm of what the codes
// lose (v − scale × codes), rounded up: by Cauchy-Schwarz no query of norm
// 1 scores v and its codes further apart than that.
func quantize(v []float32, codes []int8) (scale, loss float32) {
	var most float64
	for _, x := range v {
		most = max(most, math.Abs(float64(x)))
	}
	if most == 0 {
		clear(codes)
		return 0, 0
	}
	step := most / 127
	var lost float64
	for i, x := range v {
		c := math.Round(float64(x) / step)
		codes[i] = int8(max(-127, min(127, c)))
		d := float64(x) - float64(codes[i])*float64(float32(step))
		lost += d * d
	}
	return float32(step), float32(math.Nextafter(math.Sqrt(lost), math.Inf(1)))
}
