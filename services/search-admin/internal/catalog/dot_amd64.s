#include "textflag.h"

// func dotFMA(a, b []float32) float32
//
// Four accumulators of eight lanes take 32 products per round, then eight
// per round, then one; the lanes are summed at the end.
TEXT ·dotFMA(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

rounds32:
	CMPQ CX, $32
	JL   rounds8
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  rounds32

rounds8:
	CMPQ CX, $8
	JL   lanes
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  rounds8

lanes:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0

rest:
	TESTQ CX, CX
	JE    done
	VMOVSS (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  rest

done:
	VZEROUPPER
	MOVSS X0, ret+48(FP)
	RET

// func dotInt8FMA(q []float32, c []int8) float32
//
// As dotFMA, each byte of c widened to a float first.
TEXT ·dotInt8FMA(SB), NOSPLIT, $0-52
	MOVQ q_base+0(FP), SI
	MOVQ q_len+8(FP), CX
	MOVQ c_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

rounds32:
	CMPQ CX, $32
	JL   rounds8
	VPMOVSXBD (DI), Y4
	VPMOVSXBD 8(DI), Y5
	VPMOVSXBD 16(DI), Y6
	VPMOVSXBD 24(DI), Y7
	VCVTDQ2PS Y4, Y4
	VCVTDQ2PS Y5, Y5
	VCVTDQ2PS Y6, Y6
	VCVTDQ2PS Y7, Y7
	VFMADD231PS (SI), Y4, Y0
	VFMADD231PS 32(SI), Y5, Y1
	VFMADD231PS 64(SI), Y6, Y2
	VFMADD231PS 96(SI), Y7, Y3
	ADDQ $128, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP  rounds32

rounds8:
	CMPQ CX, $8
	JL   lanes
	VPMOVSXBD (DI), Y4
	VCVTDQ2PS Y4, Y4
	VFMADD231PS (SI), Y4, Y0
	ADDQ $32, SI
	ADDQ $8, DI
	SUBQ $8, CX
	JMP  rounds8

lanes:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0

rest:
	TESTQ CX, CX
	JE    done
	MOVBLSX (DI), AX
	VCVTSI2SSL AX, X1, X1
	VFMADD231SS (SI), X1, X0
	ADDQ $4, SI
	ADDQ $1, DI
	DECQ CX
	JMP  rest

done:
	VZEROUPPER
	MOVSS X0, ret+48(FP)
	RET

// func axpyInt8FMA(acc []float32, a float32, c []int8)
//
// acc[i] += a × c[i] for every i of acc, each byte of c widened to a float:
// 32 lanes per round, then eight, then one.
TEXT ·axpyInt8FMA(SB), NOSPLIT, $0-56
	MOVQ acc_base+0(FP), SI
	MOVQ acc_len+8(FP), CX
	VBROADCASTSS a+24(FP), Y0
	MOVQ c_base+32(FP), DI

rounds32:
	CMPQ CX, $32
	JL   rounds8
	VPMOVSXBD (DI), Y4
	VPMOVSXBD 8(DI), Y5
	VPMOVSXBD 16(DI), Y6
	VPMOVSXBD 24(DI), Y7
	VCVTDQ2PS Y4, Y4
	VCVTDQ2PS Y5, Y5
	VCVTDQ2PS Y6, Y6
	VCVTDQ2PS Y7, Y7
	VMOVUPS (SI), Y8
	VMOVUPS 32(SI), Y9
	VMOVUPS 64(SI), Y10
	VMOVUPS 96(SI), Y11
	VFMADD231PS Y4, Y0, Y8
	VFMADD231PS Y5, Y0, Y9
	VFMADD231PS Y6, Y0, Y10
	VFMADD231PS Y7, Y0, Y11
	VMOVUPS Y8, (SI)
	VMOVUPS Y9, 32(SI)
	VMOVUPS Y10, 64(SI)
	VMOVUPS Y11, 96(SI)
	ADDQ $128, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP  rounds32

rounds8:
	CMPQ CX, $8
	JL   rest
	VPMOVSXBD (DI), Y4
	VCVTDQ2PS Y4, Y4
	VMOVUPS (SI), Y8
	VFMADD231PS Y4, Y0, Y8
	VMOVUPS Y8, (SI)
	ADDQ $32, SI
	ADDQ $8, DI
	SUBQ $8, CX
	JMP  rounds8

rest:
	TESTQ CX, CX
	JE    done
	MOVBLSX (DI), AX
	VCVTSI2SSL AX, X1, X1
	VMOVSS (SI), X2
	VFMADD231SS X1, X0, X2
	VMOVSS X2, (SI)
	ADDQ $4, SI
	ADDQ $1, DI
	DECQ CX
	JMP  rest

done:
	VZEROUPPER
	RET
