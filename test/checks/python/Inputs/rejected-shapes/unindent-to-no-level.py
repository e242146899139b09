# A method dedented to a column no enclosing block uses (3, between the
# module's 0 and the class body's 4).
class Runner:
    def capture(self):
        return 1

   def replay(self):
        return 2
