def kind(x):
    match x:
        case 1:
            return "one"
          case 2:
            return "two"
