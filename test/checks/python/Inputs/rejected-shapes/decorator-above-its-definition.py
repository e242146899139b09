class Layer:
    @staticmethod
        def make():
            return Layer()
