x = f"{'\\n'.join(parts)}"
