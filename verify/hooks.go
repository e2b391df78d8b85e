package verify

import "github.com/receiptverify/verify/verify/internal/hook"

// The hooks package stream uses and no library user needs: see package
// hook.
func init() {
	hook.Register(hook.Stream[Verifier, Result, AxisName, Axis]{
		VerifyBorrowed: func(v *Verifier, raw []byte, dropSignature, omitSignatureHash bool) *Result {
			res, _ := v.verifyWith(raw, VerifyOptions{DropSignature: dropSignature, OmitSignatureHash: omitSignatureHash}, true)
			return res
		},
		AppendBinary:    (*Result).appendBinary,
		UnmarshalBinary: (*Result).unmarshalBinary,
		IndexEntry:      (*Result).indexEntry,
		SetAxis:         (*Result).setAxis,
		ChainScopeWhat:  chainScopeWhat,
	})
}
