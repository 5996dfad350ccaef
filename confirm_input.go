package ferry

import "context"

// This file holds the confirmation of a call in the 2026-07-28 era: the
// question is an input_required result's inputRequests[ConfirmKey], and
// the answer counts only in a retry whose signed requestState says the
// question was asked. That state is bound to the method, the tool, the
// caller and the arguments, and expires (see [paramsDigest], [stateKey]),
// so an approval cannot be replayed for another call or caller, nor
// supplied in inputResponses without the question having been put.

// askConfirmInput answers the confirmation from r's retry, or leaves the
// question open: [ErrInputRequired], which the call answers as
// input_required.
func (s *Server) askConfirmInput(r *request, p *ElicitParams, ans *ElicitResult) error {
	in := r.inputState()
	return in.ask("elicitation/create", ConfirmKey, p, ans)
}

// loadConfirmInput finishes loading a retry of a call that asks for
// confirmation, after [Server.loadInput] returned in and err. A state that
// is not valid for this call (another call's, another caller's, an expired
// or forged one) does not fail the call: its answers are dropped, and the
// confirmation is asked again. An answer to the confirmation counts only
// when the state shows it was asked: one sent without that is dropped.
// Runs of a task get their answers through tasks/update, once the run
// asked, and never come here.
func (s *Server) loadConfirmInput(ctx context.Context, r *request, in *inputState, err error) error {
	if err != nil {
		p := r.params
		in = r.inputState()
		in.answers, in.confirmAsked = nil, false
		if in, err = s.loadInput(in, r.method, stateKey(ctx, r.target.name), p.Arguments, p.InputResponses, ""); err != nil {
			return err
		}
	}
	if !in.confirmAsked {
		delete(in.answers, ConfirmKey)
	}
	return nil
}

// askedConfirm reports whether an input_required result that asks in's
// open questions must record that the confirmation was asked: it is one
// of them, or an earlier round's state said so.
func (in *inputState) askedConfirm() bool {
	if in.confirmAsked {
		return true
	}
	_, ok := in.requests[ConfirmKey]
	return ok
}
