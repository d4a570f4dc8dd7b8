/* train_data_src.c - paddle.io (datasets, samplers, DataLoader) and paddle.metric's Accuracy, written in Python. */
#include "lib/paddle/train.h"

const char d2_train_io_src[] =
    "\"\"\"paddle.io\"\"\"\n";

const char d2_train_metric_src[] =
    "\"\"\"paddle.metric.metrics\"\"\"\n";
