from enum import StrEnum


class WebhookDeliveryEvent(StrEnum):
    DEVICE_CONNECTED = "device.connected"
    DEVICE_DISCONNECTED = "device.disconnected"
    DEVICE_RECONNECTED = "device.reconnected"
    PUSH_COMPLETED = "push.completed"
    PUSH_FAILED = "push.failed"
    WEBHOOK_TEST = "webhook.test"

    def __str__(self) -> str:
        return str(self.value)
