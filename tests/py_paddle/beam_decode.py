# BeamSearchDecoder and dynamic_decode (paddle.nn.decode) on a GRU and an LSTM cell with fixed
# weights: predicted ids, final states, lengths, time-major output, max_step_num, a beam of one,
# tile_beam_merge_with_batch; bad arguments. Values rounded to 4 decimals (tolerance 1e-4).
import numpy as np
import paddle
import paddle.nn as nn


def setw(layer, seed):
    rs = np.random.RandomState(seed)
    sd = layer.state_dict()
    layer.set_state_dict({k: rs.rand(*sd[k].shape).astype("float32") - 0.5 for k in sorted(sd)})


def show(name, t):
    if isinstance(t, (list, tuple)):
        for i, x in enumerate(t):
            show(name + "[%d]" % i, x)
        return
    a = t.numpy()
    if a.dtype.kind in "iub":
        print(name, t.shape, a.tolist())
        return
    print(name, t.shape, (np.round(a.astype("float64"), 4) + 0.0).tolist())


def err(name, fn):
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, "error")


embed = nn.Embedding(10, 6)
proj = nn.Linear(8, 10)
cell = nn.GRUCell(6, 8)
for i, l in enumerate([embed, proj, cell]):
    setw(l, 10 + i)
enc = paddle.to_tensor(np.random.RandomState(0).rand(3, 5, 8).astype("float32") - 0.5)
init = paddle.mean(enc, axis=1)                     # [3, 8] initial GRU state

dec = nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=4, embedding_fn=embed,
                           output_fn=proj)
out, st = nn.dynamic_decode(dec, inits=init, max_step_num=6)
show("ids", out)
show("log_probs", st.log_probs)
show("finished", st.finished)
show("lengths", st.lengths)
out2, st2, lens = nn.dynamic_decode(dec, inits=init, max_step_num=3, output_time_major=True,
                                    return_length=True)
show("ids time-major", out2)
show("return_length", lens)
show("ids beam1", nn.dynamic_decode(nn.BeamSearchDecoder(cell, 0, 1, 1, embed, proj),
                                    inits=init, max_step_num=4)[0])
show("max_step 0", nn.dynamic_decode(dec, inits=init, max_step_num=0)[0])

# an LSTM cell: the states are a (h, c) pair
lcell = nn.LSTMCell(6, 8)
setw(lcell, 20)
ldec = nn.BeamSearchDecoder(lcell, 2, 3, 3, embed, proj)
lout, lst = nn.dynamic_decode(ldec, inits=(init, init * 0.5), max_step_num=5)
show("lstm ids", lout)
show("lstm h", lst.cell_states[0])
show("tile_beam", nn.BeamSearchDecoder.tile_beam_merge_with_batch(
    paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]]), 3))

show("negative max_step", nn.dynamic_decode(dec, inits=init, max_step_num=-1)[0])
err("bad states", lambda: nn.dynamic_decode(dec, inits=paddle.ones([3, 5]), max_step_num=2))
