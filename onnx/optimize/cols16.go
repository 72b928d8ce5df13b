package optimize

// Layout 1 of EdgeChat's int4 product (inference/ort/attnop, matmul.h's Q4_W_COLS16): the same
// bytes as MatMulNBits' B [N][K/32][16] and scales [N·K/32], reordered in panels of 16 columns,
// block by block, so that one row's product reads each tensor once front to back and each
// 64-byte load of B holds one dword of a block for all 16 columns (a vpdpbusd's operand).
// Column n = 16P + c, block b: B's dword k (bytes 4k..4k+3 of the block) at byte
// 256(P·nb + b) + 64k + 4c, the scale at 16(P·nb + b) + c. N must be a multiple of 16.

// Cols16Panel is the columns of a layout-1 panel; N must be a multiple of it.
const Cols16Panel = 16

// Cols16Weights returns B [N][K/32][16] in layout 1.
func Cols16Weights(b []byte, n, k int) []byte { return cols16(b, n, k/32, 4) }

// Cols16Scales returns the scales [N·K/32] (float32, as their little-endian bytes) in layout 1.
func Cols16Scales(s []byte, n, k int) []byte { return cols16(s, n, k/32, 1) }

// cols16 reorders src's 4-byte units (column n, block b, unit j < per) into layout 1.
func cols16(src []byte, n, nb, per int) []byte {
	dst := make([]byte, len(src))
	for col := range n {
		p, c := col/Cols16Panel, col%Cols16Panel
		for b := range nb {
			for j := range per {
				s := ((col*nb+b)*per + j) * 4
				d := (((p*nb+b)*per+j)*Cols16Panel + c) * 4
				copy(dst[d:d+4], src[s:s+4])
			}
		}
	}
	return dst
}
