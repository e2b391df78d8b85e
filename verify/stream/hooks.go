package stream

import (
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/internal/hook"
)

// hooks are what package verify gives this package alone (package hook).
var hooks = hook.Get[verify.Verifier, verify.Result, verify.AxisName, verify.Axis]()

// setAxis records a judgment of the stream on res and folds its verdict.
func setAxis(res *verify.Result, name verify.AxisName, st verify.Status, reason verify.Reason, note string) {
	hooks.SetAxis(res, name, verify.Axis{Status: st, Reason: reason, Note: note})
}
