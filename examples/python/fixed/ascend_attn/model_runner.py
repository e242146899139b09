from .acl_graph import ACLGraphWrapper, update_attn_params
from .context import ForwardContext, set_forward_context
from .graph_params import set_graph_params


class ModelRunner:
    def __init__(self, model, capture_sizes, graph_pool, update_stream):
        self.model = model
        self.capture_sizes = capture_sizes
        self.update_stream = update_stream
        self.graph = ACLGraphWrapper(model, graph_pool)

    def capture_model(self):
        set_graph_params(self.capture_sizes)
        for num_tokens in reversed(self.capture_sizes):
            set_forward_context(ForwardContext(capturing=True,
                                               num_tokens=num_tokens))
            self.graph(num_tokens)
        set_forward_context(ForwardContext(capturing=False))

    def execute(self, num_tokens, inputs):
        output = self.graph(num_tokens, inputs)
        update_attn_params(self.update_stream, num_tokens)
        return output
