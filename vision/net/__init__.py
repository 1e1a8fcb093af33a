"""The learned card reader (under development): proposals read by a small convolutional network (ONNX).

``vision.net.reader.CardReader`` has the free-standing reader's interface (``read_image``, ``read_region``,
``best_card``); ``vision classify --reader net`` uses it. Figures: ``bench/vision_net.py``.
"""
